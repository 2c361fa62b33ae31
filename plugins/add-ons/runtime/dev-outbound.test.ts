import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { packWithSourceMap, uploadPackage } from '../testing.js';

const ORIGIN = 'https://shop.example';

const MANIFEST: AddonManifestInput = {
  key: 'reach',
  name: 'Reach',
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['fetch'],
  // An endpoint, so that installing makes the app key (D27).
  tables: [{ name: 'notes', primaryKey: ['id'], columns: [{ name: 'id', type: 'integer', autoIncrement: true, nullable: false }] }],
  endpoints: [{ ref: 'notes', table: 'notes', methods: ['GET'] }],
  outbound: ['api.example.com'],
  actions: ['reach'],
};

const SERVER = `export default {
  actions: {
    reach: async (ctx: any, url: string) => ctx.fetch(url).then((r: any) => ({ status: r.status }), (e: Error & { code: string }) => ({ code: e.code, message: e.message })),
  },
};
`;

/** The names a dev allow-list could be smuggled in by: none of them reaches the server's add-ons plugin. */
const SMUGGLED = ['SVC_DEV_ALLOW_OUTBOUND', 'SVC_ALLOW_OUTBOUND', 'ALLOW_OUTBOUND', 'SVC_DEV_OUTBOUND_ORIGINS'];

describe('a normal instance has no dev allow-list (AO40)', () => {
  let mock: Server;
  let mockOrigin: string;
  let inst: TestInstance;
  let admin: HttpClient;
  let appKey: string;
  let source: SourceFixture;
  const saved = new Map<string, string | undefined>();

  beforeAll(async () => {
    mock = createServer((_req, res) => res.end('{"mock":true}'));
    await new Promise<void>((ok) => mock.listen(0, '127.0.0.1', ok));
    mockOrigin = `http://127.0.0.1:${(mock.address() as AddressInfo).port}`;
    // Offered through the instance's config and the process's own environment alike.
    for (const name of SMUGGLED) {
      saved.set(name, process.env[name]);
      process.env[name] = mockOrigin;
    }
    const env = Object.fromEntries(SMUGGLED.map((name) => [name, mockOrigin]));
    ({ inst, admin } = await bootWithAdmin({ env: { ...env, SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_NETWORK_FEATURES: 'true' } }));
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    const uploaded = await uploadPackage(inst.url, admin, await packWithSourceMap(MANIFEST, SERVER));
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    source = await sourceFixture('sqlite');
    const connectionId = (await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url })).body.data.connection.id;
    const plan = (await admin.get(`/api/v1/add-ons/reach/plan?version=1.0.0&connectionId=${connectionId}`)).body.data.plan;
    const res = await admin.post('/api/v1/add-ons', { key: 'reach', version: '1.0.0', connectionId, planHash: plan.hash });
    expect(res.status, res.text).toBe(201);
    appKey = (await admin.get(`/api/v1/public-keys/${res.body.data.addon.appKeyId}/reveal`)).body.data.secret;
  }, 60_000);
  afterAll(async () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await inst?.close();
    await source?.cleanup();
    await new Promise((ok) => mock?.close(ok));
  });

  const reach = (url: string) =>
    fetch(`${inst.url}/api/v1/public/apps/reach/actions/reach`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN, authorization: `Bearer ${appKey}` },
      body: JSON.stringify({ input: url }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it('still refuses the loopback mock server, by IP literal and by name, naming host and reason', async () => {
    expect(await reach(`${mockOrigin}/x`)).toEqual({
      status: 200,
      body: { data: { result: { code: 'ADDON_OUTBOUND_REFUSED', message: 'outbound fetch to 127.0.0.1 refused: private address' } } },
    });
    const port = new URL(mockOrigin).port;
    expect((await reach(`http://localhost:${port}/x`)).body.data.result).toEqual({
      code: 'ADDON_OUTBOUND_REFUSED',
      message: "outbound fetch to localhost refused: host not in the add-on's allow-list (outbound in addon.json)",
    });
  });
});
