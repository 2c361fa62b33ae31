import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { createAddonsPlugin } from '../manifest.js';
import type { InstallFault } from '../options.js';
import { packFixture, sqliteTablesLike, uploadPackage } from '../testing.js';

const notes = (version: string, extra: Partial<AddonManifestInput> = {}): AddonManifestInput => ({
  key: 'notes',
  name: 'Notes',
  version,
  engine: '>=0.1.0',
  capabilities: ['db'],
  tables: [
    {
      name: 'notes',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'body', type: 'text', nullable: false },
        ...(version === '1.1.0' ? [{ name: 'pinned', type: 'boolean' as const, nullable: false, default: false }] : []),
      ],
    },
  ],
  // 1.1.0 lets visitors pin a note: the endpoint's definition changes.
  endpoints: [{ ref: 'notes', table: 'notes', methods: ['GET', 'POST'], writable: version === '1.1.0' ? ['body', 'pinned'] : ['body'] }],
  settings: { type: 'object', properties: { title: { type: 'string', default: 'My notes' }, token: { type: 'string', secret: true } }, required: [] },
  ...extra,
});

function columnsOf(file: string, table: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`select name from pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((r) => r.name);
  } finally {
    db.close();
  }
}

describe('add-on lifecycle: upload, plan, install, upgrade, settings, remove', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let connectionId: string;
  /** Makes the next install fail half-way while set. */
  let installFault: InstallFault | null = null;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({
      replacePlugins: [createAddonsPlugin({ installFault: () => installFault })],
      env: { SVC_PUBLIC_API_ORIGINS: 'https://shop.example' },
    }));
    source = await sourceFixture('sqlite');
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(created.status).toBe(201);
    connectionId = created.body.data.connection.id;
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  const plan = async (key: string, version: string) => {
    const res = await admin.get(`/api/v1/add-ons/${key}/plan?version=${version}&connectionId=${connectionId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.plan;
  };

  it('stages an uploaded package unverified and plans it exactly', async () => {
    const pkg = await packFixture(notes('1.0.0'), null);
    const up = await uploadPackage(inst.url, admin, pkg.bytes);
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect(up.body.data.staged).toMatchObject({ key: 'notes', version: '1.0.0', verified: false, sha256: pkg.sha256 });
    const p = await plan('notes', '1.0.0');
    expect(p).toMatchObject({ key: 'notes', from: null, to: '1.0.0', connectionId, verified: false, destructive: false, peak: 1 });
    expect(p.tables).toEqual([
      {
        name: 'notes__notes',
        action: 'create',
        columns: [
          { name: 'id', type: 'integer', action: 'add' },
          { name: 'body', type: 'text', action: 'add' },
          // Every app table carries the instance column (D28).
          { name: 'svc_instance', type: 'string', action: 'add' },
        ],
      },
    ]);
    expect(p.endpoints).toEqual([
      {
        ref: 'notes-notes',
        table: 'notes__notes',
        methods: ['GET', 'POST'],
        action: 'create',
        changes: [],
        definition: { methods: ['GET', 'POST'], writable: ['body'] },
      },
    ]);
    expect(p.warnings[0]).toMatch(/uploaded/);
    expect(p.settings).toEqual([
      { name: 'title', type: 'string', required: false, secret: false },
      { name: 'token', type: 'string', required: false, secret: true },
    ]);
  });

  it('leaves nothing behind when the DDL or the meta transaction fails half-way', async () => {
    const p = await plan('notes', '1.0.0');
    for (const fault of [{ ddlSteps: 0 }, { inMetaTransaction: true }]) {
      installFault = fault;
      try {
        const res = await admin.post('/api/v1/add-ons', { key: 'notes', version: '1.0.0', connectionId, planHash: p.hash });
        expect(res.status).toBeGreaterThanOrEqual(500);
      } finally {
        installFault = null;
      }
      expect(sqliteTablesLike(source.database, 'notes')).toEqual([]);
      expect((await admin.get('/api/v1/add-ons')).body.data.addons).toEqual([]);
      const scopes = await admin.get('/api/v1/public-scopes');
      expect(JSON.stringify(scopes.body)).not.toContain('notes-notes');
    }
  });

  it('refuses a stale plan hash, then installs with the plan it showed', async () => {
    const stale = await admin.post('/api/v1/add-ons', { key: 'notes', version: '1.0.0', connectionId, planHash: '0'.repeat(64) });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('ADDON_PLAN_CHANGED');
    const p = await plan('notes', '1.0.0');
    const bad = await admin.post('/api/v1/add-ons', { key: 'notes', version: '1.0.0', connectionId, planHash: p.hash, settings: { title: 42 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('ADDON_SETTINGS_INVALID');
    const res = await admin.post('/api/v1/add-ons', { key: 'notes', version: '1.0.0', connectionId, planHash: p.hash, settings: { token: 's3cret-value' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.addon).toMatchObject({
      key: 'notes',
      version: '1.0.0',
      enabled: true,
      connectionId,
      tables: ['notes__notes'],
      endpoints: ['notes-notes'],
      settings: { title: 'My notes' },
      secretsSet: ['token'],
    });
    expect(JSON.stringify(res.body)).not.toContain('s3cret-value');
    // What a settings form needs, in the manifest's order; a secret is marked, never valued.
    expect(res.body.data.addon.settingsSchema).toEqual([
      { name: 'title', type: 'string', default: 'My notes', required: false, secret: false },
      { name: 'token', type: 'string', required: false, secret: true },
    ]);
    expect(sqliteTablesLike(source.database, 'notes')).toEqual(['notes__notes']);
    const keyId = res.body.data.addon.appKeyId;
    expect(keyId).toBeTruthy();
    const keys = await admin.get('/api/v1/public-keys');
    const appKey = keys.body.data.keys.find((k: { id: string }) => k.id === keyId);
    expect(appKey).toMatchObject({ kind: 'browser', appKey: { addonKey: 'notes', peak: 1 }, grants: [{ ref: 'notes-notes', methods: ['GET', 'POST'] }] });
    const again = await admin.post('/api/v1/add-ons', { key: 'notes', version: '1.0.0', connectionId, planHash: p.hash });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ADDON_INSTALLED');
  });

  it('serves the app endpoint with its app key', async () => {
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    const keyId = (await admin.get('/api/v1/add-ons')).body.data.addons[0].appKeyId;
    const secret = (await admin.get(`/api/v1/public-keys/${keyId}/reveal`)).body.data.secret;
    const write = await fetch(`${inst.url}/api/v1/public/records/notes-notes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', origin: 'https://shop.example' },
      body: JSON.stringify({ values: { body: 'hello' } }),
    });
    expect(write.status, await write.clone().text()).toBe(201);
    const read = await fetch(`${inst.url}/api/v1/public/records/notes-notes`, {
      headers: { authorization: `Bearer ${secret}`, origin: 'https://shop.example' },
    });
    expect(read.status).toBe(200);
    expect(JSON.stringify(await read.json())).toContain('hello');
  });

  it('changes settings with secrets write-only, and disables and enables', async () => {
    const bad = await admin.patch('/api/v1/add-ons/notes', { settings: { nope: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe('body.settings.nope');
    const res = await admin.patch('/api/v1/add-ons/notes', { settings: { title: 'Shop notes' }, enabled: false });
    expect(res.status).toBe(200);
    expect(res.body.data.addon).toMatchObject({ enabled: false, settings: { title: 'Shop notes' }, secretsSet: ['token'] });
    const cleared = await admin.patch('/api/v1/add-ons/notes', { settings: { token: null }, enabled: true });
    expect(cleared.body.data.addon).toMatchObject({ enabled: true, secretsSet: [] });
  });

  it('upgrades additively, refuses a downgrade, keeps rows', async () => {
    const pkg = await packFixture(notes('1.1.0'), null);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const p = await plan('notes', '1.1.0');
    expect(p).toMatchObject({ from: '1.0.0', to: '1.1.0', destructive: false });
    expect(p.tables[0]).toMatchObject({ name: 'notes__notes', action: 'alter' });
    expect(p.tables[0].columns).toContainEqual({ name: 'pinned', type: 'boolean', action: 'add' });
    // A changed endpoint says so, and what changed (not "keep").
    expect(p.endpoints).toEqual([
      expect.objectContaining({
        ref: 'notes-notes',
        action: 'change',
        changes: ['writable'],
        definition: { methods: ['GET', 'POST'], writable: ['body', 'pinned'] },
      }),
    ]);
    const up = await admin.post('/api/v1/add-ons/notes/upgrade', { version: '1.1.0', planHash: p.hash });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.data.addon.version).toBe('1.1.0');
    expect(columnsOf(source.database, 'notes__notes')).toEqual(['id', 'body', 'svc_instance', 'pinned']);
    const down = await admin.get(`/api/v1/add-ons/notes/plan?version=1.0.0`);
    expect(down.status).toBe(409);
    expect(down.body.error.code).toBe('ADDON_DOWNGRADE');
  });

  it('refuses an engine the instance is not', async () => {
    const pkg = await packFixture({ ...notes('1.0.0'), key: 'future', engine: '>=99.0.0', tables: [], endpoints: [] }, null);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const res = await admin.get('/api/v1/add-ons/future/plan?version=1.0.0');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('ADDON_ENGINE_MISMATCH');
    expect((await admin.delete('/api/v1/add-ons/staged/future/1.0.0')).status).toBe(200);
    expect((await admin.delete('/api/v1/add-ons/staged/future/1.0.0')).status).toBe(404);
  });

  it('removes the add-on with its endpoints and key, keeping the tables unless dropData', async () => {
    const removal = await admin.get('/api/v1/add-ons/notes/plan');
    expect(removal.body.data.plan).toMatchObject({ from: '1.1.0', to: null, destructive: true });
    const res = await admin.delete('/api/v1/add-ons/notes');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ removed: true, key: 'notes', droppedTables: [] });
    expect(sqliteTablesLike(source.database, 'notes')).toEqual(['notes__notes']);
    expect(JSON.stringify((await admin.get('/api/v1/public-keys')).body)).not.toContain('"addonKey":"notes"');
    // Installed again over its kept table: a conflict, since the table is no longer the add-on's.
    const p = await admin.get(`/api/v1/add-ons/notes/plan?version=1.1.0&connectionId=${connectionId}`);
    expect(p.status).toBe(409);
    expect(p.body.error.code).toBe('ADDON_CONFLICT');
    rmSync(source.database + '-wal', { force: true });
  });
});
