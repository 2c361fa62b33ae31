import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { eventually } from '../../connections/testing.js';
import { addonsReachingLoopback, packFixture, uploadPackage } from '../testing.js';

/**
 * Review of issue 26, point 2: ctx.fetch shared the 8 host-call slots with ctx.db and ctx.kv, and
 * a fetch kept its slot up to its own 10 s after its call's 5 s had ended. Two add-ons fetching a
 * server that does not answer held every slot, and every other add-on's kv call waited until
 * ADDON_TIMEOUT.
 */

const fetcher = (key: string): AddonManifestInput => ({
  key,
  name: key,
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['fetch'],
  // `localhost` is no name a manifest may list; the operator's connected URL may name it.
  connect: { kind: 'secret', fields: [{ name: 'url', label: 'URL' }] },
  outbound: ['connect:url'],
  actions: ['wait'],
});
const FETCHER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({
  actions: {
    wait: async (ctx, input) => {
      const out = await Promise.allSettled([1, 2, 3, 4].map((i) => ctx.fetch(input.url + '/' + i)));
      return out.map((r) => (r.status === 'fulfilled' ? r.value.status : r.reason.code));
    },
  },
});
`;
const counter: AddonManifestInput = { key: 'counter', name: 'counter', version: '1.0.0', engine: '>=0.1.0', capabilities: ['kv'], actions: ['touch'] };
const COUNTER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({ actions: { touch: async (ctx) => { await ctx.kv.set('n', 7); return ctx.kv.get('n'); } } });
`;

describe('host-call pools: network calls have their own', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  /** Requests the slow server holds without answering. */
  const held: ServerResponse[] = [];
  const slow = createServer((_req: IncomingMessage, res: ServerResponse) => void held.push(res));
  let url: string;

  const install = async (m: AddonManifestInput, server: string) => {
    const pkg = await packFixture(m, server);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = await admin.get(`/api/v1/add-ons/${m.key}/plan?version=1.0.0`);
    expect(plan.status, plan.text).toBe(200);
    const res = await admin.post('/api/v1/add-ons', { key: m.key, version: '1.0.0', planHash: plan.body.data.plan.hash });
    expect(res.status, res.text).toBe(201);
  };
  const action = (key: string, name: string, input: unknown) => admin.post(`/api/v1/public/apps/${key}/actions/${name}`, { input });

  beforeAll(async () => {
    // No host: dual-stack, so `localhost` reaches it whether it resolves to ::1 or 127.0.0.1.
    await new Promise<void>((r) => slow.listen(0, r));
    url = `http://localhost:${(slow.address() as AddressInfo).port}`;
    ({ inst, admin } = await bootWithAdmin({ ...addonsReachingLoopback('fetch'), env: { SVC_NETWORK_FEATURES: 'true' } }));
    for (const key of ['slowa', 'slowb']) {
      await install(fetcher(key), FETCHER);
      const connected = await admin.post(`/api/v1/add-ons/${key}/connect`, { fields: { url } });
      expect(connected.status, connected.text).toBe(200);
    }
    await install(counter, COUNTER);
  }, 60_000);
  afterAll(async () => {
    for (const res of held.splice(0)) res.destroy();
    slow.closeAllConnections();
    await new Promise((r) => slow.close(r));
    await inst?.close();
  });

  it("answers another add-on's kv calls while two add-ons hold eight fetches to a server that does not answer", async () => {
    const waits = [action('slowa', 'wait', { url }), action('slowb', 'wait', { url })];
    // Each add-on has its four fetches in flight: as many host calls as all add-ons together used to get.
    expect(await eventually(async () => held.length, 8, 20_000)).toBe(8);
    const touched = await action('counter', 'touch', null);
    expect(touched.status, touched.text).toBe(200);
    expect(touched.body.data.result).toBe(7);
    for (const res of held.splice(0)) res.end('late');
    const ends = await Promise.all(waits);
    // The fetchers ended at their own deadline, whatever the server did after.
    for (const end of ends) expect([200, 504]).toContain(end.status);
  }, 60_000);
});
