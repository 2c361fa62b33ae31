import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient, HttpResponse } from '../../../test/helpers/client.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { packFixture, uploadPackage } from '../testing.js';

const ORIGIN = 'https://shop.example';
const T0 = Date.UTC(2026, 2, 1, 9, 0, 0);
/** The browser-key read budget (seed "Limits"): 3,000 a minute for the key, a twelfth per visitor. */
const BROWSER_KEY_READS = 3000;

const board = (peak: number): AddonManifestInput => ({
  key: 'board',
  name: 'Board',
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['db'],
  peak,
  tables: [
    {
      name: 'posts',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'body', type: 'text', nullable: false },
      ],
    },
  ],
  // The endpoint's own per-visitor limit is out of the way: the key's budget is what is tested.
  endpoints: [{ ref: 'posts', table: 'posts', methods: ['GET'], rateLimit: 100_000 }],
});

function expectLimited(res: HttpResponse<any>, limit: string): void {
  expect(res.status, res.text).toBe(429);
  expect(res.body.error).toMatchObject({ code: 'PUBLIC_RATE_LIMITED', params: { limit } });
  const retry = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${res.headers.get('retry-after')}`).toBe(true);
}

/**
 * D27: an app key's whole budget is `peak` × a browser key's, and each visitor still gets a
 * twelfth of it. With peak 3: 9,000 reads a minute for the key, 750 per visitor.
 */
describe('an app key with peak 3', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let secret: string;
  let at = T0;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ now: () => at, env: { SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_TRUST_PROXY: 'true' } }));
    source = await sourceFixture('sqlite');
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(created.status, created.text).toBe(201);
    const connectionId = created.body.data.connection.id as string;
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    const pkg = await packFixture(board(3), null);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = await admin.get(`/api/v1/add-ons/board/plan?version=1.0.0&connectionId=${connectionId}`);
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.data.plan.peak).toBe(3);
    const installed = await admin.post('/api/v1/add-ons', { key: 'board', version: '1.0.0', connectionId, planHash: plan.body.data.plan.hash });
    expect(installed.status, installed.text).toBe(201);
    const revealed = await admin.get(`/api/v1/public-keys/${installed.body.data.addon.appKeyId}/reveal`);
    expect(revealed.status, revealed.text).toBe(200);
    secret = revealed.body.data.secret;
  }, 120_000);

  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  const client = () => inst.client();
  const read = (c: HttpClient, ip: string) =>
    c.request('GET', '/api/v1/public/records/board-posts?limit=1', {
      headers: { authorization: `Bearer ${secret}`, origin: ORIGIN, 'x-forwarded-for': ip },
      noOrigin: true,
    });

  it('shows on the keys page which app owns it, with its peak', async () => {
    const keys = await admin.get('/api/v1/public-keys');
    expect(keys.status).toBe(200);
    const owned = (keys.body.data.keys as Array<{ appKey: { addonKey: string; peak: number } | null }>).filter((k) => k.appKey);
    expect(owned).toEqual([expect.objectContaining({ appKey: { addonKey: 'board', peak: 3, instance: null } })]);
  });

  it("tells the page its budget: three times a browser key's, a twelfth of that per visitor", async () => {
    const config = await client().request('GET', '/api/v1/public/config', { headers: { authorization: `Bearer ${secret}`, origin: ORIGIN }, noOrigin: true });
    expect(config.status, config.text).toBe(200);
    expect(config.body.data.limits).toMatchObject({ keyReadsPerMinute: 3 * BROWSER_KEY_READS, visitorReadsPerMinute: (3 * BROWSER_KEY_READS) / 12 });
  });

  it('lets three times the reads through in a minute; the 9,001st is 429 with Retry-After', async () => {
    const budget = 3 * BROWSER_KEY_READS;
    at += 61_000; // a minute of its own: the config read above counted too
    // The budget is spent through the whole request path in-process (fastify's inject: no
    // sockets, so the 9,000 take seconds, not a minute), from 30 addresses (each under the
    // per-address 600 and its visitor's 750); the reads that matter then go over HTTP.
    const headers = (ip: string) => ({ authorization: `Bearer ${secret}`, origin: ORIGIN, 'x-forwarded-for': ip });
    let next = 0;
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < budget) {
          const ip = `10.7.${next++ % 30}.1`;
          const res = await inst.app.http.inject({ method: 'GET', url: '/api/v1/public/records/board-posts?limit=1', headers: headers(ip) });
          if (res.statusCode !== 200 && failures.length < 5) failures.push(`${ip}: ${res.statusCode} ${res.body}`);
        }
      }),
    );
    expect(failures).toEqual([]);
    expectLimited(await read(client(), '10.7.99.1'), 'key');
    // A minute later the budget is whole again.
    at += 61_000;
    expect((await read(client(), '10.7.99.1')).status).toBe(200);
  }, 180_000);
});
