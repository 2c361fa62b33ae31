import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { eventually, sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { packFixture, uploadPackage } from '../testing.js';

const ORIGIN = 'https://shop.example';

const manifest = (key: string, extra: Partial<AddonManifestInput> = {}): AddonManifestInput => ({
  key,
  name: key,
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['db', 'kv'],
  tables: [
    {
      name: 'tickets',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'title', type: 'string', nullable: false },
        { name: 'seats', type: 'integer', nullable: false, default: 1 },
      ],
    },
  ],
  endpoints: [{ ref: 'tickets', table: 'tickets', methods: ['GET', 'POST', 'PATCH'], writable: ['title', 'seats'] }],
  hooks: ['tickets.beforeWrite', 'tickets.afterWrite', 'schedule:* * * * * *'],
  actions: ['last', 'count', 'peek', 'boom'],
  ...extra,
});

const SERVER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({
  hooks: {
    'tickets.beforeWrite': async (ctx, e) => {
      if (e.op === 'delete') return;
      if (typeof e.values.seats === 'number' && e.values.seats > 8) return { refuse: 'At most 8 seats, please.' };
      if (typeof e.values.title === 'string') return { values: { ...e.values, title: e.values.title.trim().toUpperCase() } };
    },
    'tickets.afterWrite': async (ctx, e) => { await ctx.kv.set('last', e.row.title); },
    'schedule:* * * * * *': async (ctx, e) => { await ctx.kv.set('tick', e.at); },
  },
  actions: {
    last: async (ctx) => ({ last: await ctx.kv.get('last'), tick: await ctx.kv.get('tick') }),
    count: async (ctx) => (await ctx.db.list('tickets', { where: { seats: { gte: 1 } }, limit: 100 })).rows.length,
    peek: async (ctx, input) => { try { await ctx.db.list(input.table); return 'reached'; } catch (e) { return e.code; } },
    boom: async () => { throw new Error('kaput'); },
  },
});
`;

describe('add-on runtime: hooks on writes, actions, schedules, host functions', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let connectionId: string;
  let appKey: string;

  const install = async (key: string, extra: Partial<AddonManifestInput> = {}, server = SERVER) => {
    const pkg = await packFixture(manifest(key, extra), server);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = (await admin.get(`/api/v1/add-ons/${key}/plan?version=1.0.0&connectionId=${connectionId}`)).body.data.plan;
    const res = await admin.post('/api/v1/add-ons', { key, version: '1.0.0', connectionId, planHash: plan.hash });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data.addon;
  };
  const action = (key: string, name: string, input: unknown, auth: Record<string, string>) =>
    fetch(`${inst.url}/api/v1/public/apps/${key}/actions/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN, ...auth },
      body: JSON.stringify({ input }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
    source = await sourceFixture('sqlite');
    connectionId = (await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url })).body.data.connection.id;
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    const addon = await install('tix');
    appKey = (await admin.get(`/api/v1/public-keys/${addon.appKeyId}/reveal`)).body.data.secret;
    await install('other', { hooks: [], actions: [] }, 'export default {};');
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  const publicWrite = (values: Record<string, unknown>) =>
    fetch(`${inst.url}/api/v1/public/records/tix-tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${appKey}`, 'content-type': 'application/json', origin: ORIGIN },
      body: JSON.stringify({ values }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it('beforeWrite changes values and refuses writes, through the public API and the data API', async () => {
    const ok = await publicWrite({ title: '  gala  ', seats: 2 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(JSON.stringify(ok.body)).toContain('"GALA"');
    const refused = await publicWrite({ title: 'party', seats: 9 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'ADDON_REFUSED', message: 'At most 8 seats, please.' });
    const viaData = await admin.post(`/api/v1/data/${connectionId}/tix__tickets`, { values: { title: 'x', seats: 12 } });
    expect(viaData.status).toBe(400);
    expect(viaData.body.error.code).toBe('ADDON_REFUSED');
    const dataOk = await admin.post(`/api/v1/data/${connectionId}/tix__tickets`, { values: { title: 'matinee', seats: 1 } });
    expect(dataOk.status, JSON.stringify(dataOk.body)).toBe(201);
    expect(JSON.stringify(dataOk.body)).toContain('MATINEE');
  });

  it('afterWrite and schedules run, and an action reads what they stored', async () => {
    const last = await eventually(
      async () => (await action('tix', 'last', null, { authorization: `Bearer ${appKey}` })).body.data?.result?.last ?? null,
      'MATINEE',
      10_000,
    );
    expect(last).toBe('MATINEE');
    const tick = await eventually(
      async () => typeof (await action('tix', 'last', null, { authorization: `Bearer ${appKey}` })).body.data?.result?.tick,
      'string',
      10_000,
    );
    expect(tick).toBe('string');
  });

  it('actions answer the app key and staff, and nobody else', async () => {
    const count = await action('tix', 'count', null, { authorization: `Bearer ${appKey}` });
    expect(count).toEqual({ status: 200, body: { data: { result: 2 } } });
    const cookie = `svc_session=${admin.cookie('svc_session')}`;
    const staff = await action('tix', 'count', null, { cookie, origin: inst.url });
    expect(staff, JSON.stringify(staff.body)).toEqual({ status: 200, body: { data: { result: 2 } } });
    // A session's cookie sent from another site's page is refused (D7).
    expect((await action('tix', 'count', null, { cookie })).body.error.code).toBe('CSRF_REFUSED');
    const otherKey = (await admin.get('/api/v1/add-ons')).body.data.addons.find((a: { key: string }) => a.key === 'other').appKeyId;
    const otherSecret = (await admin.get(`/api/v1/public-keys/${otherKey}/reveal`)).body.data.secret;
    expect((await action('tix', 'count', null, { authorization: `Bearer ${otherSecret}` })).body.error.code).toBe('PUBLIC_KEY_INVALID');
    expect((await action('tix', 'count', null, {})).status).toBe(401);
    expect((await action('tix', 'nope', null, { authorization: `Bearer ${appKey}` })).body.error.code).toBe('ADDON_HANDLER_MISSING');
    const boom = await action('tix', 'boom', null, { authorization: `Bearer ${appKey}` });
    expect(boom.status).toBe(502);
    expect(boom.body.error.code).toBe('ADDON_FAILED');
    expect(JSON.stringify(boom.body)).not.toMatch(/at .*\.js|\/work\//);
  });

  it("reaches only its own tables: another add-on's table is refused", async () => {
    expect((await action('tix', 'peek', { table: 'tickets' }, { authorization: `Bearer ${appKey}` })).body.data.result).toBe('reached');
    // The other add-on's physical table, and its declared name: neither is this add-on's.
    expect((await action('tix', 'peek', { table: 'other__tickets' }, { authorization: `Bearer ${appKey}` })).body.data.result).toBe('ADDON_HOST_DENIED');
  });

  it("the app's key and endpoints are the app's: not revoked, edited or deleted on their own (D27)", async () => {
    const addon = (await admin.get('/api/v1/add-ons')).body.data.addons.find((a: { key: string }) => a.key === 'tix');
    const revoke = await admin.delete(`/api/v1/public-keys/${addon.appKeyId}`);
    expect(revoke.status).toBe(409);
    expect(revoke.body.error).toMatchObject({ code: 'PUBLIC_KEY_APP_OWNED', params: { addonKey: 'tix' } });
    const widen = await admin.patch('/api/v1/public-scopes/tix-tickets', { methods: ['GET', 'POST', 'PATCH', 'DELETE'] });
    expect(widen.status).toBe(409);
    expect(widen.body.error.code).toBe('PUBLIC_ENDPOINT_APP_OWNED');
    expect((await admin.delete('/api/v1/public-scopes/tix-tickets')).body.error.code).toBe('PUBLIC_ENDPOINT_APP_OWNED');
    expect((await publicWrite({ title: 'still', seats: 1 })).status).toBe(201);
  });

  it('a disabled add-on runs nothing', async () => {
    expect((await admin.patch('/api/v1/add-ons/tix', { enabled: false })).status).toBe(200);
    const dataOk = await admin.post(`/api/v1/data/${connectionId}/tix__tickets`, { values: { title: 'late', seats: 12 } });
    expect(dataOk.status).toBe(201);
    // Its app key stops with it (D27), and staff get no action either.
    expect((await publicWrite({ title: 'x', seats: 1 })).body.error.code).toBe('PUBLIC_KEY_INVALID');
    expect((await action('tix', 'count', null, { authorization: `Bearer ${appKey}` })).body.error.code).toBe('PUBLIC_KEY_INVALID');
    expect((await action('tix', 'count', null, { cookie: `svc_session=${admin.cookie('svc_session')}`, origin: inst.url })).body.error.code).toBe(
      'ADDON_NOT_FOUND',
    );
    expect((await admin.patch('/api/v1/add-ons/tix', { enabled: true })).status).toBe(200);
    expect((await publicWrite({ title: 'back', seats: 1 })).status).toBe(201);
  });
});
