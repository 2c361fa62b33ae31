import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { packFixture, uploadPackage } from '../testing.js';

const ORIGIN = 'https://venue.example';
const T0 = Date.UTC(2026, 3, 1, 9, 0, 0);

/** A table-booking-like app: a bookings table behind an endpoint, and actions a page calls. */
const manifest: AddonManifestInput = {
  key: 'tables',
  name: 'Tables',
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['db'],
  // 100 ms of CPU: a busy action times out soon, so many timeouts take little time.
  limits: { memoryMb: 64, cpuMs: 100 },
  tables: [
    {
      name: 'bookings',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'party', type: 'integer', nullable: false },
      ],
    },
  ],
  endpoints: [{ ref: 'bookings', table: 'bookings', methods: ['GET', 'POST'], writable: ['party'] }],
  actions: ['spin', 'hold', 'chatty'],
};

const SERVER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({
  actions: {
    spin: async () => { for (;;) {} },
    hold: async (ctx, input) => ({ held: input }),
    chatty: async (ctx) => {
      const line = 'x'.repeat(8000);
      for (let i = 0; i < 90; i++) ctx.log.info('line ' + i + ' ' + line);
      return 'said';
    },
  },
});
`;

interface LogLine {
  level: number;
  msg: string;
  addon?: string;
  code?: string;
  suppressed?: number;
  err?: unknown;
  stack?: unknown;
}

describe('public actions of an app', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let secret: string;
  let at = T0;
  const logLines: string[] = [];
  const logs = (): LogLine[] => logLines.map((l) => JSON.parse(l) as LogLine);

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ now: () => at, logLines, env: { SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_TRUST_PROXY: 'true' } }));
    source = await sourceFixture('sqlite');
    const created = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(created.status, created.text).toBe(201);
    const connectionId = created.body.data.connection.id as string;
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    const pkg = await packFixture(manifest, SERVER);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = await admin.get(`/api/v1/add-ons/tables/plan?version=1.0.0&connectionId=${connectionId}`);
    expect(plan.status, plan.text).toBe(200);
    const installed = await admin.post('/api/v1/add-ons', { key: 'tables', version: '1.0.0', connectionId, planHash: plan.body.data.plan.hash });
    expect(installed.status, installed.text).toBe(201);
    secret = (await admin.get(`/api/v1/public-keys/${installed.body.data.addon.appKeyId}/reveal`)).body.data.secret;
  }, 120_000);

  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  const call = (name: string, ip: string, input: unknown = null) =>
    fetch(`${inst.url}/api/v1/public/apps/tables/actions/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, origin: ORIGIN, 'x-forwarded-for': ip, 'content-type': 'application/json' },
      body: JSON.stringify({ input }),
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as { error?: { code: string; params?: Record<string, unknown> } } }));

  it('logs timing-out actions at warn without a stack, at most 10 lines a minute, then one line with the count left out', async () => {
    at += 61_000;
    const first = logLines.length;
    for (let i = 0; i < 30; i++) {
      const res = await call('spin', `10.1.${i}.1`);
      expect(res.status, JSON.stringify(res.body)).toBe(504);
      expect(res.body.error?.code).toBe('ADDON_TIMEOUT');
    }
    const written = logs().slice(first);
    // Nothing of these at error level, and nothing carries a stack.
    expect(written.filter((l) => l.level >= 50)).toEqual([]);
    expect(logLines.slice(first).some((l) => l.includes('"stack"'))).toBe(false);
    const failures = written.filter((l) => l.msg === 'add-on call failed');
    expect(failures.length).toBe(10);
    expect(failures.every((l) => l.level === 40 && l.addon === 'tables' && l.code === 'ADDON_TIMEOUT')).toBe(true);
    // The next minute's first failure tells how many were left out, then is logged itself.
    at += 61_000;
    const second = logLines.length;
    expect((await call('spin', '10.2.0.1')).status).toBe(504);
    const next = logs().slice(second);
    expect(next.filter((l) => l.msg.startsWith('add-on call failures not logged'))).toEqual([
      expect.objectContaining({ level: 40, addon: 'tables', suppressed: 20 }),
    ]);
    expect(next.filter((l) => l.msg === 'add-on call failed')).toHaveLength(1);
  }, 120_000);

  it("charges each action call as a write: the visitor's 26th in a minute is 429 with Retry-After", async () => {
    at += 61_000;
    for (let i = 0; i < 25; i++) {
      const res = await call('hold', '10.3.0.1', i);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const refused = await call('hold', '10.3.0.1');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'PUBLIC_RATE_LIMITED', params: { limit: 'visitor' } });
    const retry = Number(refused.headers.get('retry-after'));
    expect(retry >= 1 && retry <= 60).toBe(true);
    // Another visitor goes on.
    expect((await call('hold', '10.3.0.2')).status).toBe(200);
  }, 120_000);

  it("shares the key's write budget (300 a minute at peak 1) with its writes: spent by actions, writes and actions are 429", async () => {
    at += 61_000;
    // From 20 addresses, each under its visitor's 25 and the address's 600; in-process, so the 300 take no minute.
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < 300) {
          const ip = `10.4.${next++ % 20}.1`;
          const res = await inst.app.http.inject({
            method: 'POST',
            url: '/api/v1/public/apps/tables/actions/hold',
            headers: { authorization: `Bearer ${secret}`, origin: ORIGIN, 'x-forwarded-for': ip, 'content-type': 'application/json' },
            payload: JSON.stringify({ input: 1 }),
          });
          if (res.statusCode !== 200 && failures.length < 5) failures.push(`${ip}: ${res.statusCode} ${res.body}`);
        }
      }),
    );
    expect(failures).toEqual([]);
    const action = await call('hold', '10.4.99.1');
    expect(action.status).toBe(429);
    expect(action.body.error).toMatchObject({ code: 'PUBLIC_RATE_LIMITED', params: { limit: 'key' } });
    expect(Number(action.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const write = await fetch(`${inst.url}/api/v1/public/records/tables-bookings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, origin: ORIGIN, 'x-forwarded-for': '10.4.98.1', 'content-type': 'application/json' },
      body: JSON.stringify({ values: { party: 2 } }),
    });
    expect(write.status).toBe(429);
    expect(((await write.json()) as { error: { params: { limit: string } } }).error.params.limit).toBe('key');
    // Staff are not the key: their calls are not counted against it.
    const staff = await admin.post('/api/v1/public/apps/tables/actions/hold', { input: 'staff' });
    expect(staff.status, staff.text).toBe(200);
    at += 61_000;
    expect((await call('hold', '10.4.99.1')).status).toBe(200);
  }, 180_000);

  it("writes at most 64 KiB of one call's ctx.log lines, then one line saying the log was truncated", async () => {
    at += 61_000;
    const first = logLines.length;
    const res = await call('chatty', '10.5.0.1');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const written = logs().slice(first);
    const lines = written.filter((l) => l.addon === 'tables' && l.msg.startsWith('line '));
    // 90 lines of 8 KB were asked for; 64 KiB holds 7 of them.
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(logLines.slice(first).join('').length).toBeLessThan(100 * 1024);
    expect(written.filter((l) => l.msg === 'log truncated')).toEqual([expect.objectContaining({ addon: 'tables', level: 40 })]);
  }, 120_000);
});
