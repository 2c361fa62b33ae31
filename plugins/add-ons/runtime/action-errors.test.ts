import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { addApiKey, bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { ADDON_LOG_LINES_PER_MINUTE } from './addon-log.js';
import { packWithSourceMap, uploadPackage } from '../testing.js';

const ORIGIN = 'https://shop.example';
const SECRET = 'sk-live-9f8e7d6c5b4a';

const MANIFEST: AddonManifestInput = {
  key: 'errs',
  name: 'Errs',
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['fetch'],
  // An endpoint, so that installing makes the app key (D27).
  tables: [{ name: 'notes', primaryKey: ['id'], columns: [{ name: 'id', type: 'integer', autoIncrement: true, nullable: false }] }],
  endpoints: [{ ref: 'notes', table: 'notes', methods: ['GET'] }],
  outbound: ['api.example.com'],
  settings: { type: 'object', properties: { apiKey: { type: 'string', secret: true }, venue: { type: 'string' } }, required: [] },
  actions: ['book', 'badRefusal', 'reservedCode', 'boom', 'chatty', 'flood', 'fetchPrivate', 'fetchUnlisted', 'summary'],
  staffActions: ['summary'],
};

/** The author's server.ts: its line numbers are what the log must point at. */
const SERVER = `interface Input { party?: number }

function checkKey(key: string): void {
  if (key.length > 4) throw new Error('the provider refused key ' + key);
}

export default {
  actions: {
    book: async (ctx: any, input: Input) => {
      if ((input.party ?? 0) > 8) ctx.refuse(422, 'PARTY_TOO_LARGE', 'At most 8 guests online; call us for more.', { max: 8 });
      return { booked: input.party };
    },
    badRefusal: async (ctx: any) => ctx.refuse(200, 'FINE', 'not a refusal'),
    reservedCode: async (ctx: any) => ctx.refuse(409, 'PUBLIC_SLOT_FULL', 'taken'),
    boom: async (ctx: any) => {
      checkKey(ctx.settings.apiKey);
      return 'unreached';
    },
    chatty: async (ctx: any) => {
      ctx.log.info('booking saved', { orderId: 7, level: 'mine', token: ctx.settings.apiKey });
      ctx.log.warn('slow provider');
      return 'logged';
    },
    flood: async (ctx: any) => {
      for (let i = 0; i < 90; i++) ctx.log.info('flood ' + i);
      return 'flooded';
    },
    fetchPrivate: async (ctx: any) => ctx.fetch('http://10.0.0.5/x').then(() => 'reached', (e: Error & { code: string }) => ({ code: e.code, message: e.message })),
    fetchUnlisted: async (ctx: any) => ctx.fetch('https://not-listed.example/x').then(() => 'reached', (e: Error & { code: string }) => ({ code: e.code, message: e.message })),
    summary: async () => ({ bookings: 3 }),
  },
};
`;
const lineOf = (text: string) => SERVER.split('\n').findIndex((l) => l.includes(text)) + 1;

describe("actions' errors: ctx.refuse, the failure's source line in the log, ctx.log fields, outbound refusals, API keys", () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let appKey: string;
  let source: SourceFixture;
  let skew = 0;
  const logs: string[] = [];
  const lines = () => logs.map((l) => JSON.parse(l) as Record<string, any>);
  /** The first log line matching, once it is written. */
  const logged = async (match: (l: Record<string, any>) => boolean) => {
    await expect.poll(() => lines().some(match), { timeout: 5000 }).toBe(true);
    return lines().find(match)!;
  };

  const action = (name: string, input: unknown, auth: Record<string, string>) =>
    fetch(`${inst.url}/api/v1/public/apps/errs/actions/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN, ...auth },
      body: JSON.stringify({ input }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const asApp = () => ({ authorization: `Bearer ${appKey}` });
  const asStaff = () => ({ cookie: `svc_session=${admin.cookie('svc_session')}`, origin: inst.url });

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({
      env: { SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_NETWORK_FEATURES: 'true' },
      logLines: logs,
      now: () => Date.now() + skew,
    }));
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    expect((await uploadPackage(inst.url, admin, await packWithSourceMap(MANIFEST, SERVER))).status).toBe(201);
    source = await sourceFixture('sqlite');
    const connectionId = (await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url })).body.data.connection.id;
    const plan = (await admin.get(`/api/v1/add-ons/errs/plan?version=1.0.0&connectionId=${connectionId}`)).body.data.plan;
    const res = await admin.post('/api/v1/add-ons', {
      key: 'errs',
      version: '1.0.0',
      connectionId,
      planHash: plan.hash,
      settings: { apiKey: SECRET, venue: 'Harbour' },
    });
    expect(res.status, res.text).toBe(201);
    appKey = (await admin.get(`/api/v1/public-keys/${res.body.data.addon.appKeyId}/reveal`)).body.data.secret;
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('ctx.refuse answers its 4xx in the standard envelope, to the app key, staff and an admin API key alike', async () => {
    const refusal = { error: { code: 'PARTY_TOO_LARGE', message: 'At most 8 guests online; call us for more.', params: { max: 8 } } };
    expect(await action('book', { party: 12 }, asApp())).toEqual({ status: 422, body: refusal });
    expect(await action('book', { party: 2 }, asApp())).toEqual({ status: 200, body: { data: { result: { booked: 2 } } } });
    const staff = await action('book', { party: 12 }, asStaff());
    expect(staff.status).toBe(422);
    expect(staff.body.error).toMatchObject(refusal.error);
    const key = await addApiKey(inst, 'admin');
    const viaKey = await action('book', { party: 12 }, key);
    expect(viaKey.status).toBe(422);
    expect(viaKey.body.error).toMatchObject(refusal.error);
    // Logged as a refusal (info), not as a failure.
    expect(lines().some((l) => l.level === 30 && l.code === 'PARTY_TOO_LARGE' && l.status === 422)).toBe(true);
  });

  it('a refusal that breaks the rules (not a 4xx, an instance code) fails the call, saying why', async () => {
    const bad = await action('badRefusal', null, asApp());
    expect(bad.status).toBe(502);
    expect(bad.body.error.code).toBe('ADDON_FAILED');
    expect(bad.body.error.params.message).toMatch(/^ctx\.refuse\(status, …\): status is a 4xx/);
    const reserved = await action('reservedCode', null, asApp());
    expect(reserved.status).toBe(502);
    expect(reserved.body.error.params.message).toMatch(/PUBLIC_SLOT_FULL is the instance's/);
  });

  it("an admin API key calls actions its role allows, staff-only ones included; a viewer's key and the app key are refused those", async () => {
    expect(await action('summary', null, await addApiKey(inst, 'admin'))).toEqual({ status: 200, body: { data: { result: { bookings: 3 } } } });
    const viewer = await action('summary', null, await addApiKey(inst, 'viewer'));
    expect(viewer.status).toBe(403);
    expect(viewer.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'add-ons.use' } });
    const app = await action('summary', null, asApp());
    expect(app.status).toBe(403);
    expect(app.body.error.code).toBe('ADDON_ACTION_STAFF_ONLY');
    expect((await action('summary', null, { authorization: 'Bearer adm_sk_unknownunknownunknown' })).body.error.code).toBe('AUTH_KEY_INVALID');
  });

  it('a thrown error is logged at error level with its message, its stack mapped to server.ts and the source line; the caller gets no stack, and no secret shows', async () => {
    const boom = await action('boom', null, asApp());
    expect(boom.status).toBe(502);
    expect(boom.body.error.code).toBe('ADDON_FAILED');
    expect(boom.body.error.params.message).toBe('the provider refused key [secret]');
    expect(JSON.stringify(boom.body)).not.toMatch(/server\.(ts|js)|at /);
    const line = await logged((l) => l.addon === 'errs' && l.err?.message?.startsWith('the provider refused'));
    expect(line).toMatchObject({
      level: 50,
      addon: 'errs',
      version: '1.0.0',
      err: { message: 'the provider refused key [secret]' },
      source: { line: lineOf("throw new Error('the provider refused key"), text: "  if (key.length > 4) throw new Error('the provider refused key ' + key);" },
    });
    expect(line.source.file).toMatch(/server\.ts$/);
    expect(line.source.column).toBeGreaterThan(1);
    // Every frame of the author's code is mapped: the throw, then its caller in `boom`.
    expect(line.err.stack).toContain(`server.ts:${lineOf("throw new Error('the provider refused key")}:`);
    expect(line.err.stack).toContain(`server.ts:${lineOf('checkKey(ctx.settings.apiKey)')}:`);
    expect(line.err.stack).not.toContain('server.js:');
    expect(line.err.stack).not.toContain('svc:bootstrap.js');
    expect(line.err).toEqual({
      message: 'the provider refused key [secret]',
      stack: expect.stringMatching(/^Error: the provider refused key \[secret\]\n {4}at checkKey \(server\.ts:4:\d+\)/),
    });
    expect(line.msg).toMatch(/^add-on errs failed: the provider refused key \[secret\] \(server\.ts:4:\d+\)$/);
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it('ctx.log lines carry their fields at the top level, tagged with the add-on and its version, with no secret', async () => {
    expect((await action('chatty', null, asApp())).status).toBe(200);
    const info = await logged((l) => l.addon === 'errs' && l.msg === 'booking saved');
    expect(info).toMatchObject({ level: 30, addon: 'errs', version: '1.0.0', msg: 'booking saved', orderId: 7, _level: 'mine', token: '[secret]' });
    expect(lines().find((l) => l.addon === 'errs' && l.msg === 'slow provider')).toMatchObject({ level: 40, version: '1.0.0' });
    expect(logs.join('\n')).not.toContain(SECRET);
  });

  it("one add-on's ctx.log is bounded a minute; what it left out is said once the next minute", async () => {
    skew += 61_000;
    const count = () => lines().filter((l) => l.addon === 'errs' && typeof l.msg === 'string' && l.msg.startsWith('flood ')).length;
    for (let i = 0; i < 4; i++) expect((await action('flood', null, asStaff())).status).toBe(200);
    await expect.poll(count, { timeout: 5000 }).toBe(ADDON_LOG_LINES_PER_MINUTE);
    expect(count()).toBe(ADDON_LOG_LINES_PER_MINUTE);
    skew += 61_000;
    expect((await action('chatty', null, asStaff())).status).toBe(200);
    const told = await logged((l) => l.addon === 'errs' && typeof l.dropped === 'number');
    expect(told).toMatchObject({ level: 40, dropped: 4 * 90 - ADDON_LOG_LINES_PER_MINUTE });
  });

  it('a refused outbound fetch names the host and why, inside the add-on and in the log', async () => {
    const priv = await action('fetchPrivate', null, asApp());
    expect(priv.body.data.result).toEqual({ code: 'ADDON_OUTBOUND_REFUSED', message: 'outbound fetch to 10.0.0.5 refused: private address' });
    const unlisted = await action('fetchUnlisted', null, asApp());
    expect(unlisted.body.data.result).toEqual({
      code: 'ADDON_OUTBOUND_REFUSED',
      message: "outbound fetch to not-listed.example refused: host not in the add-on's allow-list (outbound in addon.json)",
    });
    const refusals = lines().filter((l) => l.addon === 'errs' && l.code === 'ADDON_OUTBOUND_REFUSED');
    expect(refusals).toEqual([
      expect.objectContaining({
        level: 40,
        version: '1.0.0',
        host: '10.0.0.5',
        reason: 'ip_literal',
        msg: 'outbound fetch to 10.0.0.5 refused: private address',
      }),
      expect.objectContaining({ level: 40, host: 'not-listed.example', reason: 'host_not_listed' }),
    ]);
  });
});
