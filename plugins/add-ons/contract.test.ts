import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../connections/testing.js';
import { packFixture, sqliteTablesLike, uploadPackage } from './testing.js';

const ORIGIN = 'https://shop.example';

/** Issue 26: the add-on contract's edges (a disabled app's new key, upgrades and settings, re-uploads, patterns, plans). */
describe('add-on contract', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let connectionId: string;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
    source = await sourceFixture('sqlite');
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(created.status, created.text).toBe(201);
    connectionId = created.body.data.connection.id;
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  const stage = async (m: AddonManifestInput, server: string | null = null, files: Record<string, string> = {}) => {
    const pkg = await packFixture(m, server, files);
    const up = await uploadPackage(inst.url, admin, pkg.bytes);
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    return pkg;
  };
  const planOf = async (key: string, version: string, withConnection = true) => {
    const res = await admin.get(`/api/v1/add-ons/${key}/plan?version=${version}${withConnection ? `&connectionId=${connectionId}` : ''}`);
    expect(res.status, res.text).toBe(200);
    return res.body.data.plan;
  };
  const install = async (key: string, version: string, settings?: Record<string, unknown>) => {
    const plan = await planOf(key, version);
    const res = await admin.post('/api/v1/add-ons', { key, version, connectionId, planHash: plan.hash, ...(settings ? { settings } : {}) });
    expect(res.status, res.text).toBe(201);
    return res.body.data.addon;
  };
  const addonView = async (key: string) => {
    const list = await admin.get('/api/v1/add-ons');
    expect(list.status).toBe(200);
    return (list.body.data.addons as Array<{ key: string }>).find((a) => a.key === key) as Record<string, any>;
  };

  describe('a disabled app upgraded to its first endpoint (point 9)', () => {
    const feed = (version: string, endpoints: boolean): AddonManifestInput => ({
      key: 'feed',
      name: 'Feed',
      version,
      engine: '>=0.1.0',
      capabilities: ['db'],
      tables: [
        {
          name: 'items',
          primaryKey: ['id'],
          columns: [
            { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
            { name: 'body', type: 'text', nullable: false },
          ],
        },
      ],
      endpoints: endpoints ? [{ ref: 'items', table: 'items', methods: ['GET'] }] : [],
    });

    it('gets its new app key suspended: listed as such, 401 until the app is enabled', async () => {
      await stage(feed('1.0.0', false));
      await install('feed', '1.0.0');
      expect((await admin.patch('/api/v1/add-ons/feed', { enabled: false })).status).toBe(200);
      await stage(feed('1.1.0', true));
      const plan = await planOf('feed', '1.1.0', false);
      const up = await admin.post('/api/v1/add-ons/feed/upgrade', { version: '1.1.0', planHash: plan.hash });
      expect(up.status, up.text).toBe(200);
      const keyId = up.body.data.addon.appKeyId as string;
      expect(keyId).toBeTruthy();

      const keys = await admin.get('/api/v1/public-keys');
      expect(keys.status).toBe(200);
      expect((keys.body.data.keys as Array<{ id: string }>).find((k) => k.id === keyId)).toMatchObject({ suspended: true });
      const secret = (await admin.get(`/api/v1/public-keys/${keyId}/reveal`)).body.data.secret as string;
      const read = () =>
        inst
          .client()
          .request('GET', '/api/v1/public/records/feed-items?limit=1', { headers: { authorization: `Bearer ${secret}`, origin: ORIGIN }, noOrigin: true });
      expect((await read()).status).toBe(401);

      expect((await admin.patch('/api/v1/add-ons/feed', { enabled: true })).status).toBe(200);
      expect((await read()).status).toBe(200);
      const after = await admin.get('/api/v1/public-keys');
      expect((after.body.data.keys as Array<{ id: string }>).find((k) => k.id === keyId)).toMatchObject({ suspended: false });
    }, 60_000);
  });
  describe("an upgrade re-checks the stored settings, the instances' too (point 10)", () => {
    const venue = (version: string): AddonManifestInput => ({
      key: 'venue',
      name: 'Venue',
      version,
      engine: '>=0.1.0',
      capabilities: ['db'],
      tables: [
        {
          name: 'rooms',
          primaryKey: ['id'],
          columns: [
            { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
            { name: 'name', type: 'text', nullable: false },
          ],
        },
      ],
      endpoints: [{ ref: 'rooms', table: 'rooms', methods: ['GET'] }],
      settings:
        version === '1.0.0'
          ? {
              type: 'object',
              properties: { apiToken: { type: 'string' }, seats: { type: 'string' }, code: { type: 'string' }, legacy: { type: 'string' } },
              required: [],
            }
          : {
              type: 'object',
              properties: {
                apiToken: { type: 'string', secret: true },
                seats: { type: 'integer', minimum: 1 },
                code: { type: 'string', pattern: '^[A-Z]{3}$' },
              },
              required: [],
            },
    });

    it('plans what is dropped, converted, sealed and refused; refuses the upgrade until refused values are given; seals secrets', async () => {
      await stage(venue('1.0.0'));
      await install('venue', '1.0.0', { apiToken: 'tok-plain-123', seats: '12', code: 'abc', legacy: 'x' });
      const put = await admin.put('/api/v1/surfaces/instances', {
        appKey: 'venue',
        instances: [{ id: 'north', name: 'North', settings: { apiToken: 'tok-north-456', seats: 'many', code: 'NOR' } }],
      });
      expect(put.status, put.text).toBe(200);
      await stage(venue('2.0.0'));
      const plan = await planOf('venue', '2.0.0', false);
      const changes = (plan.settingChanges as Array<{ instance: string | null; name: string; action: string; message: string }>).map(
        ({ instance, name, action }) => `${instance ?? '-'} ${name} ${action}`,
      );
      expect(changes.sort()).toEqual(
        ['- apiToken seal', '- seats convert', '- code invalid', '- legacy drop', 'north apiToken seal', 'north seats invalid', 'north legacy drop'].sort(),
      );
      expect(JSON.stringify(plan.settingChanges)).not.toContain('tok-');

      const refused = await admin.post('/api/v1/add-ons/venue/upgrade', { version: '2.0.0', planHash: plan.hash });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error.code).toBe('ADDON_SETTINGS_INVALID');
      expect((refused.body.error.issues as Array<{ path: string }>).map((i) => i.path).sort()).toEqual([
        'body.instanceSettings.north.seats',
        'body.settings.code',
      ]);
      expect((await addonView('venue')).version).toBe('1.0.0');

      const up = await admin.post('/api/v1/add-ons/venue/upgrade', {
        version: '2.0.0',
        planHash: plan.hash,
        settings: { code: 'ABC' },
        instanceSettings: { north: { seats: 40 } },
      });
      expect(up.status, up.text).toBe(200);
      const view = await addonView('venue');
      expect(view.settings).toEqual({ seats: 12, code: 'ABC' });
      expect(view.secretsSet).toEqual(['apiToken']);
      const listed = await admin.get('/api/v1/surfaces');
      expect(listed.status, listed.text).toBe(200);
      expect(JSON.stringify(listed.body)).not.toContain('tok-north');

      const meta = inst.app.kernel.db.withTables<{
        addons: { addon_key: string; settings: string };
        addon_instances: { addon_key: string; settings: string };
      }>();
      const stored = await meta.selectFrom('addons').select('settings').where('addon_key', '=', 'venue').executeTakeFirstOrThrow();
      const instances = await meta.selectFrom('addon_instances').select('settings').where('addon_key', '=', 'venue').execute();
      expect(stored.settings).not.toContain('tok-plain');
      expect(JSON.parse(stored.settings).apiToken).toHaveProperty('$sealed');
      expect(JSON.stringify(instances)).not.toContain('tok-north');
      expect(JSON.parse(instances[0]!.settings)).toMatchObject({ seats: 40, code: 'NOR' });
    }, 60_000);
  });
  describe('a table-less add-on upgraded to its first tables (point 11)', () => {
    const memo = (version: string): AddonManifestInput => ({
      key: 'memo',
      name: 'Memo',
      version,
      engine: '>=0.1.0',
      ...(version === '1.0.0'
        ? {}
        : {
            capabilities: ['db'],
            tables: [
              {
                name: 'memos',
                primaryKey: ['id'],
                columns: [
                  { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
                  { name: 'body', type: 'text', nullable: false },
                ],
              },
            ],
            endpoints: [{ ref: 'memos', table: 'memos', methods: ['GET'] }],
          }),
    });

    it('takes the connection the plan was asked with', async () => {
      await stage(memo('1.0.0'));
      const first = await admin.get('/api/v1/add-ons/memo/plan?version=1.0.0');
      expect(first.status, first.text).toBe(200);
      const installed = await admin.post('/api/v1/add-ons', { key: 'memo', version: '1.0.0', planHash: first.body.data.plan.hash });
      expect(installed.status, installed.text).toBe(201);
      expect(installed.body.data.addon.connectionId).toBeNull();

      await stage(memo('1.1.0'));
      const without = await admin.get('/api/v1/add-ons/memo/plan?version=1.1.0');
      expect(without.status).toBe(409);
      expect(without.body.error.code).toBe('ADDON_CONNECTION_REQUIRED');
      const plan = await planOf('memo', '1.1.0');
      expect(plan.tables.map((t: { name: string; action: string }) => `${t.name} ${t.action}`)).toEqual(['memo__memos create']);
      const noConnection = await admin.post('/api/v1/add-ons/memo/upgrade', { version: '1.1.0', planHash: plan.hash });
      expect(noConnection.status, noConnection.text).toBe(409);
      expect(noConnection.body.error.code).toBe('ADDON_CONNECTION_REQUIRED');
      const up = await admin.post('/api/v1/add-ons/memo/upgrade', { version: '1.1.0', planHash: plan.hash, connectionId });
      expect(up.status, up.text).toBe(200);
      expect(up.body.data.addon).toMatchObject({ version: '1.1.0', connectionId, tables: ['memo__memos'], endpoints: ['memo-memos'] });
      expect(up.body.data.addon.appKeyId).toBeTruthy();
      expect(sqliteTablesLike(source.database, 'memo__')).toEqual(['memo__memos']);
    }, 60_000);
  });
  describe('a re-upload of a version (point 26)', () => {
    const hello = (): AddonManifestInput => ({ key: 'hello', name: 'Hello', version: '1.0.0', engine: '>=0.1.0', actions: ['greet'] });
    const code = (word: string) =>
      `import { defineAddon } from '@svc/addons-sdk';\nexport default defineAddon({ actions: { greet: async () => ({ word: ${JSON.stringify(word)} }) } });\n`;

    it('with other bytes is 409 once that version is installed; staged only, it replaces the package and the plan with it', async () => {
      const first = await stage(hello(), code('one'));
      const other = await packFixture(hello(), code('two'));
      expect(other.sha256).not.toBe(first.sha256);
      const before = await planOf('hello', '1.0.0');
      // Not installed yet: the new bytes are staged, and the plan (its hash names the package) changes.
      expect((await uploadPackage(inst.url, admin, other.bytes)).status).toBe(201);
      expect((await planOf('hello', '1.0.0')).hash).not.toBe(before.hash);
      expect((await uploadPackage(inst.url, admin, first.bytes)).status).toBe(201);
      await install('hello', '1.0.0');

      const again = await uploadPackage(inst.url, admin, other.bytes);
      expect(again.status, JSON.stringify(again.body)).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'ADDON_VERSION_INSTALLED', params: { key: 'hello', version: '1.0.0', sha256: first.sha256 } });
      const staged = (await admin.get('/api/v1/add-ons')).body.data.staged as Array<{ key: string; sha256: string }>;
      expect(staged.filter((p) => p.key === 'hello').map((p) => p.sha256)).toEqual([first.sha256]);
      // The same bytes again are the same package.
      expect((await uploadPackage(inst.url, admin, first.bytes)).status).toBe(201);
    }, 60_000);
  });
  describe("an author's setting pattern (point 22)", () => {
    it('is checked in linear time: a catastrophic pattern on 45 characters answers at once, and the API stays responsive', async () => {
      await stage({
        key: 'gate',
        name: 'Gate',
        version: '1.0.0',
        engine: '>=0.1.0',
        settings: { type: 'object', properties: { venue: { type: 'string', pattern: '^(a+)+$' } }, required: [] },
      });
      await install('gate', '1.0.0');
      // JavaScript's backtracking RegExp takes about 2^44 steps on this: days, with the API thread held.
      const started = Date.now();
      let done = false;
      const patch = admin.patch('/api/v1/add-ons/gate', { settings: { venue: `${'a'.repeat(44)}!` } }).finally(() => (done = true));
      const pings: number[] = [];
      while (!done) {
        const res = await fetch(`${inst.url}/api/v1/healthz`);
        pings.push(res.status);
        await new Promise((r) => setTimeout(r, 20));
      }
      const res = await patch;
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'ADDON_SETTINGS_INVALID', issues: [{ path: 'body.settings.venue', code: 'invalid_setting' }] });
      // A loaded machine may be slow; the bug held the thread for 30 s and more.
      expect(Date.now() - started).toBeLessThan(8000);
      expect(pings.every((s) => s === 200)).toBe(true);
      const ok = await admin.patch('/api/v1/add-ons/gate', { settings: { venue: 'a'.repeat(45) } });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.data.addon.settings).toEqual({ venue: 'a'.repeat(45) });
    }, 60_000);
  });
  describe('the plan (point 29)', () => {
    it("shows the add-on's CPU and memory limits and what each endpoint declares", async () => {
      await stage({
        key: 'shelf',
        name: 'Shelf',
        version: '1.0.0',
        engine: '>=0.1.0',
        capabilities: ['db'],
        limits: { memoryMb: 96, cpuMs: 750 },
        tables: [
          {
            name: 'books',
            primaryKey: ['id'],
            columns: [
              { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
              { name: 'title', type: 'text', nullable: false },
            ],
          },
        ],
        endpoints: [{ ref: 'books', table: 'books', methods: ['GET', 'POST'], writable: ['title'], filterable: ['title'] }],
      });
      const plan = await planOf('shelf', '1.0.0');
      expect(plan.limits).toEqual({ memoryMb: 96, cpuMs: 750 });
      expect(plan.endpoints).toEqual([
        {
          ref: 'shelf-books',
          table: 'shelf__books',
          methods: ['GET', 'POST'],
          action: 'create',
          changes: [],
          definition: expect.objectContaining({ methods: ['GET', 'POST'], writable: ['title'], filterable: ['title'] }),
        },
      ]);
    }, 60_000);
  });
});
