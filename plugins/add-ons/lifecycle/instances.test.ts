import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { packFixture, uploadPackage } from '../testing.js';

const ORIGIN = 'https://venues.example';

/** One app run for two venues (D28): a guest list whose hook and action read the venue's settings and rows. */
const manifest: AddonManifestInput = {
  key: 'guests',
  name: 'Guests',
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['db'],
  tables: [
    {
      name: 'entries',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'author', type: 'string', maxLength: 80, nullable: false },
        { name: 'stars', type: 'integer', nullable: false, default: 3 },
      ],
    },
  ],
  endpoints: [{ ref: 'entries', table: 'entries', methods: ['GET', 'POST', 'PATCH', 'DELETE'], writable: ['author', 'stars'] }],
  settings: {
    type: 'object',
    properties: { venue: { type: 'string', default: 'Main' }, maxStars: { type: 'integer', minimum: 1, maximum: 10, default: 5 } },
    required: [],
  },
  hooks: ['entries.beforeWrite', 'schedule:0 0 1 1 *'],
  actions: ['count'],
  surfaces: [{ name: 'widget', kind: 'public-page', entry: 'index.html', title: 'Guests' }],
};
const SERVER = `import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({
  hooks: {
    'entries.beforeWrite': (ctx, e) =>
      e.op !== 'delete' && e.values.stars > ctx.settings.maxStars ? { refuse: ctx.settings.venue + ' (' + ctx.instance + ') takes ' + ctx.settings.maxStars + ' stars at most.' } : undefined,
    'schedule:0 0 1 1 *': async (ctx) => ({ venue: ctx.settings.venue, rows: (await ctx.db.list('entries', {})).rows.length }),
  },
  actions: {
    count: async (ctx) => {
      const all = await ctx.db.list('entries', {});
      const made = await ctx.db.insert('entries', { author: 'from ' + ctx.instance, svc_instance: 'elsewhere' });
      const mine = await ctx.db.get('entries', made.id);
      await ctx.db.delete('entries', made.id);
      return { instance: ctx.instance, venue: ctx.settings.venue, authors: all.rows.map((r) => r.author).sort(), madeIn: mine.svc_instance };
    },
  },
});
`;
const FILES = { 'surfaces/widget/index.html': '<!doctype html><html><head><title>Guests</title></head><body></body></html>' };

const available = { sqlite: true, postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql') };

for (const dialect of ['sqlite', 'postgres', 'mysql'] as const)
  describe.runIf(available[dialect])(`instances of one app on a ${dialect} connection (D28)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let source: SourceFixture;
    let appKey: string;
    let connectionId: string;
    const keys: Record<string, string> = {};

    const pub = async (key: string, method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, origin: ORIGIN };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${inst.url}/api/v1/public${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, text, body: text ? JSON.parse(text) : null };
    };
    const authors = async (key: string, ref = 'guests-entries') => {
      const res = await pub(key, 'GET', `/records/${ref}`);
      expect(res.status, res.text).toBe(200);
      return (res.body.data as Array<{ author: string }>).map((r) => r.author).sort();
    };
    const put = (instances: unknown[]) => admin.put('/api/v1/surfaces/instances', { appKey: 'guests', instances });

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
      source = await sourceFixture(dialect);
      const created = await admin.post('/api/v1/connections', { name: 'Venues', dialect, url: source.url });
      expect(created.status, created.text).toBe(201);
      connectionId = created.body.data.connection.id;
      expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
      const pkg = await packFixture(manifest, SERVER, FILES);
      expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
      const plan = (await admin.get(`/api/v1/add-ons/guests/plan?version=1.0.0&connectionId=${connectionId}`)).body.data.plan;
      const installed = await admin.post('/api/v1/add-ons', { key: 'guests', version: '1.0.0', connectionId, planHash: plan.hash });
      expect(installed.status, installed.text).toBe(201);
      appKey = (await admin.get(`/api/v1/public-keys/${installed.body.data.addon.appKeyId}/reveal`)).body.data.secret;
    }, 60_000);
    afterAll(async () => {
      await inst?.close();
      await source?.cleanup();
    });

    it('runs as before with no instances: rows made now belong to the default instance', async () => {
      const res = await pub(appKey, 'POST', '/records/guests-entries', { values: { author: 'Before' } });
      expect(res.status, res.text).toBe(201);
      expect(res.body.data).not.toHaveProperty('svc_instance');
      expect((await admin.get('/api/v1/surfaces')).body.data.surfaces[0].instances).toEqual([]);
    });

    it('refuses ids that are not kebab-case, the default id, duplicates and settings the schema refuses', async () => {
      const bad = await put([{ id: 'North_1', name: 'North' }]);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_FAILED');
      const reserved = await put([{ id: 'default', name: 'Main' }]);
      expect(reserved.body.error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: 'body.instances.0.id', code: 'reserved' }] });
      const twice = await put([
        { id: 'north', name: 'North' },
        { id: 'north', name: 'Again' },
      ]);
      expect(twice.body.error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: 'body.instances.1.id', code: 'duplicate' }] });
      const settings = await put([{ id: 'north', name: 'North', settings: { maxStars: 99, colour: 'red' } }]);
      expect(settings.status).toBe(400);
      expect(settings.body.error.code).toBe('ADDON_SETTINGS_INVALID');
      expect(settings.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual([
        'body.instances.0.settings.colour',
        'body.instances.0.settings.maxStars',
      ]);
      expect((await admin.put('/api/v1/surfaces/instances', { appKey: 'nope', instances: [] })).body.error.code).toBe('ADDON_NOT_FOUND');
    });

    it('gives each venue its own key, settings and rows', async () => {
      const res = await put([
        { id: 'north', name: 'North', settings: { venue: 'North', maxStars: 2 } },
        { id: 'south', name: 'South', settings: { venue: 'South' } },
      ]);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.instances).toEqual([
        expect.objectContaining({ id: 'north', name: 'North', settings: { venue: 'North', maxStars: 2 } }),
        expect.objectContaining({ id: 'south', name: 'South', settings: { venue: 'South', maxStars: 5 } }),
      ]);
      for (const k of res.body.data.created) keys[k.instance] = k.secret;
      expect(Object.keys(keys).sort()).toEqual(['north', 'south']);
      const surfaces = (await admin.get('/api/v1/surfaces')).body.data.surfaces;
      expect(surfaces[0].instances.map((i: { id: string; appKeyId: string }) => [i.id, typeof i.appKeyId])).toEqual([
        ['north', 'string'],
        ['south', 'string'],
      ]);

      // Each key books at its own venue and reads its own rows; the default key keeps the rows made before.
      const north = await pub(keys.north!, 'POST', '/records/guests-entries', { values: { author: 'Ann', stars: 2 } });
      expect(north.status, north.text).toBe(201);
      const south = await pub(keys.south!, 'POST', '/records/guests-entries', { values: { author: 'Sam', stars: 5 } });
      expect(south.status, south.text).toBe(201);
      expect(await authors(keys.north!)).toEqual(['Ann']);
      expect(await authors(keys.south!)).toEqual(['Sam']);
      expect(await authors(appKey)).toEqual(['Before']);

      // Another venue's row is not there for this key: get, change, delete.
      const samId = south.body.data.id;
      expect((await pub(keys.north!, 'GET', `/records/guests-entries/${samId}`)).status).toBe(404);
      expect((await pub(keys.north!, 'PATCH', `/records/guests-entries/${samId}`, { values: { author: 'Taken' } })).status).toBe(404);
      expect((await pub(keys.north!, 'DELETE', `/records/guests-entries/${samId}`)).status).toBe(404);
      expect((await pub(keys.south!, 'GET', `/records/guests-entries/${samId}`)).body.data.author).toBe('Sam');
      // The instance column is not a caller's to write.
      const cross = await pub(keys.north!, 'POST', '/records/guests-entries', { values: { author: 'Sneak', svc_instance: 'south' } });
      expect(cross.status).toBe(400);
      expect(await authors(keys.south!)).toEqual(['Sam']);

      // The hook runs with the venue's settings: North takes 2 stars at most, South 5.
      const refused = await pub(keys.north!, 'POST', '/records/guests-entries', { values: { author: 'Bo', stars: 3 } });
      expect(refused.body.error).toMatchObject({ code: 'ADDON_REFUSED', message: 'North (north) takes 2 stars at most.' });
      expect((await pub(keys.south!, 'POST', '/records/guests-entries', { values: { author: 'Bo', stars: 3 } })).status).toBe(201);
    });

    it("runs actions for the calling key's instance: its settings, and ctx.db sees and writes its rows alone", async () => {
      const call = (key: string) => pub(key, 'POST', '/apps/guests/actions/count', { input: null });
      const north = await call(keys.north!);
      expect(north.status, north.text).toBe(200);
      expect(north.body.data.result).toEqual({ instance: 'north', venue: 'North', authors: ['Ann'], madeIn: 'north' });
      expect((await call(keys.south!)).body.data.result).toEqual({ instance: 'south', venue: 'South', authors: ['Bo', 'Sam'], madeIn: 'south' });
      expect((await call(appKey)).body.data.result).toEqual({ instance: 'default', venue: 'Main', authors: ['Before'], madeIn: 'default' });
      // Staff name the instance.
      const staff = await admin.post('/api/v1/public/apps/guests/actions/count?instance=south', { input: null });
      expect(staff.status, staff.text).toBe(200);
      expect(staff.body.data.result.venue).toBe('South');
      expect((await admin.post('/api/v1/public/apps/guests/actions/count?instance=west', { input: null })).body.error.code).toBe('ADDON_INSTANCE_NOT_FOUND');
      // A schedule runs once per instance, each with its settings and rows.
      const queued = await admin.post('/api/v1/jobs', { kind: 'add-ons.schedule', payload: { key: 'guests', hook: 'schedule:0 0 1 1 *', dueAt: Date.now() } });
      expect(queued.status, queued.text).toBe(201);
      const job = await inst.app.kernel.jobs.waitFor(queued.body.data.job.id, 10_000);
      expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
      expect(job.result).toEqual({
        default: { venue: 'Main', rows: 1 },
        north: { venue: 'North', rows: 1 },
        south: { venue: 'South', rows: 2 },
      });
    });

    it("serves a surface with the instance's key on ?instance=", async () => {
      const meta = async (query: string) => {
        const res = await fetch(`${inst.url}/api/v1/add-ons/guests/bundle/widget/index.html${query}`);
        const html = await res.text();
        return {
          status: res.status,
          appKey: JSON.parse((/<meta name="svc-app" content="([^"]*)" \/>/.exec(html)?.[1] ?? 'null').replace(/&quot;/g, '"'))?.appKey,
        };
      };
      expect(await meta('')).toEqual({ status: 200, appKey });
      expect(await meta('?instance=north')).toEqual({ status: 200, appKey: keys.north });
      expect((await meta('?instance=west')).status).toBe(404);
    });

    it('removes an instance only once it holds no rows, and its key stops', async () => {
      const refused = await put([{ id: 'north', name: 'North' }]);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'ADDON_INSTANCE_NOT_EMPTY', params: { instance: 'south', table: 'guests__entries' } });
      expect(await authors(keys.south!)).toEqual(['Bo', 'Sam']);
      const rows = (await pub(keys.south!, 'GET', '/records/guests-entries')).body.data as Array<{ id: number }>;
      for (const r of rows) expect((await pub(keys.south!, 'DELETE', `/records/guests-entries/${r.id}`)).status).toBe(200);
      // North's settings are kept when its entry leaves them out.
      const removed = await put([{ id: 'north', name: 'North venue' }]);
      expect(removed.status, removed.text).toBe(200);
      expect(removed.body.data.instances).toEqual([expect.objectContaining({ id: 'north', name: 'North venue', settings: { venue: 'North', maxStars: 2 } })]);
      expect(removed.body.data.created).toEqual([]);
      expect((await pub(keys.south!, 'GET', '/records/guests-entries')).status).toBe(401);
      expect(await authors(keys.north!)).toEqual(['Ann']);
    });

    it("stops every instance's key while the app is disabled, a key made meanwhile too", async () => {
      expect((await admin.patch('/api/v1/add-ons/guests', { enabled: false })).status).toBe(200);
      expect((await pub(keys.north!, 'GET', '/records/guests-entries')).status).toBe(401);
      const res = await put([
        { id: 'north', name: 'North venue' },
        { id: 'east', name: 'East' },
      ]);
      expect(res.status, res.text).toBe(200);
      const east = res.body.data.created[0].secret;
      expect((await pub(east, 'GET', '/records/guests-entries')).status).toBe(401);
      expect((await admin.patch('/api/v1/add-ons/guests', { enabled: true })).status).toBe(200);
      expect(await authors(east)).toEqual([]);
      expect(await authors(keys.north!)).toEqual(['Ann']);
    });

    // An install made before instances existed: its table has no instance column and its endpoints no instance filter.
    // Declared for SQLite only (the DDL it checks is the same portable plan on every dialect), so no dialect reports it skipped.
    if (dialect === 'sqlite')
      it('gives an older install the instance column additively; its rows stay the default instance', async () => {
        const legacy = { ...manifest, key: 'legacy', hooks: [], actions: [], surfaces: [], capabilities: [] };
        expect((await uploadPackage(inst.url, admin, (await packFixture(legacy, null)).bytes)).status).toBe(201);
        const plan = (await admin.get(`/api/v1/add-ons/legacy/plan?version=1.0.0&connectionId=${connectionId}`)).body.data.plan;
        const installed = await admin.post('/api/v1/add-ons', { key: 'legacy', version: '1.0.0', connectionId, planHash: plan.hash });
        expect(installed.status, installed.text).toBe(201);
        const key = (await admin.get(`/api/v1/public-keys/${installed.body.data.addon.appKeyId}/reveal`)).body.data.secret;
        const file = new Database(source.database);
        try {
          for (const { name } of file
            .prepare("select name from sqlite_master where type = 'index' and tbl_name = 'legacy__entries' and sql like '%svc_instance%'")
            .all() as Array<{ name: string }>)
            file.exec(`drop index "${name}"`);
          file.exec('alter table legacy__entries drop column svc_instance');
        } finally {
          file.close();
        }
        const meta = inst.app.kernel.db.withTables<{ public_scopes: { addon_key: string | null; definition: string; id: string } }>();
        for (const row of await meta.selectFrom('public_scopes').select(['id', 'definition']).where('addon_key', '=', 'legacy').execute()) {
          const d = JSON.parse(row.definition);
          await meta
            .updateTable('public_scopes')
            .set({ definition: JSON.stringify({ ...d, filters: [] }) })
            .where('id', '=', row.id)
            .execute();
        }
        expect((await admin.post(`/api/v1/connections/${connectionId}/introspect`, {})).status).toBe(200);
        await new Promise((r) => setTimeout(r, 2_100)); // the data plane's endpoint copy lives 2 s
        expect((await pub(key, 'POST', '/records/legacy-entries', { values: { author: 'Old' } })).status).toBe(201);

        const res = await admin.put('/api/v1/surfaces/instances', { appKey: 'legacy', instances: [{ id: 'annex', name: 'Annex' }] });
        expect(res.status, res.text).toBe(200);
        const columns = new Database(source.database, { readonly: true });
        try {
          expect((columns.prepare('select name from pragma_table_info(?)').all('legacy__entries') as Array<{ name: string }>).map((c) => c.name)).toContain(
            'svc_instance',
          );
        } finally {
          columns.close();
        }
        const annex = res.body.data.created[0].secret;
        expect(await authors(key, 'legacy-entries')).toEqual(['Old']);
        expect(await authors(annex, 'legacy-entries')).toEqual([]);
        expect((await pub(annex, 'POST', '/records/legacy-entries', { values: { author: 'New' } })).status).toBe(201);
        expect(await authors(annex, 'legacy-entries')).toEqual(['New']);
        expect(await authors(key, 'legacy-entries')).toEqual(['Old']);
      });
  });
