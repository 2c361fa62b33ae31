import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture, runScript, type FixtureDialect } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { addUser, bootWithAdmin, issuePaths, openEvents, type SseStream } from '../../test/helpers/identity.js';
import type { MetaChoice, TestInstance } from '../../test/helpers/instance.js';
import { ConnectionRepository } from '../connections/repository.js';
import { targetOrRefuse } from '../connections/service.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

/** The same four changes in each dialect's spelling: a column added, a table dropped, a type changed, a foreign key added; plus a dropped column an override names. */
const ALTER: Record<FixtureDialect, string> = {
  sqlite: `
    alter table product add column barcode varchar(32);
    alter table product drop column weight_kg;
    drop table setting;
    create table "café_new" (id integer primary key, name varchar(100) not null, "größe" varchar(10), opens_at time, rating decimal(3, 1));
    insert into "café_new" select id, name, "größe", opens_at, rating from "café";
    drop table "café";
    alter table "café_new" rename to "café";
    alter table review add column order_id integer references "order" (id);
  `,
  postgres: `
    alter table product add column barcode varchar(32);
    alter table product drop column weight_kg;
    drop table setting;
    alter table "café" alter column rating type numeric(3, 1);
    alter table review add column order_id integer;
    alter table review add constraint review_order_id_fkey foreign key (order_id) references "order" (id);
  `,
  mysql: `
    alter table product add column barcode varchar(32);
    alter table product drop column weight_kg;
    drop table setting;
    alter table \`café\` modify rating decimal(3, 1);
    alter table review add column order_id int null, add constraint review_order_id_fkey foreign key (order_id) references \`order\` (id);
  `,
};

const OVERRIDES = {
  tables: [
    {
      table: 'user',
      label: 'Customers',
      displayColumn: 'email',
      columns: [
        { column: 'email', personal: true, format: 'email' },
        { column: 'api_token', secret: true },
        { column: 'first name', label: 'Given name' },
      ],
    },
    {
      table: 'product',
      columns: [
        { column: 'weight_kg', label: 'Weight' },
        { column: 'description', hidden: true },
      ],
    },
    { table: 'setting', label: 'Settings' },
    { table: 'audit_event', hidden: true },
  ],
};

function schemaFlows(source: FixtureDialect, meta: MetaChoice) {
  let inst: TestInstance;
  let admin: HttpClient;
  let viewer: HttpClient;
  let events: SseStream;
  let target: string;
  let temp: TempDatabase | null = null;
  let dir: string | null = null;
  let id: string;
  let url: string;
  let createdAnswer: { introspection: { ok: boolean; snapshot: { id: string } | null } | null };
  let first: { id: string; hash: string };
  const api = (path: string) => `/api/v1/connections/${id}${path}`;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ meta }));
    viewer = (await addUser(inst, { role: 'viewer', email: 'viewer@example.com' })).client;
    if (source === 'sqlite') {
      dir = mkdtempSync(join(tmpdir(), 'schema-src-'));
      target = join(dir, 'shop.db');
    } else {
      temp = await createTempDatabase(source);
      target = temp.url;
    }
    await loadFixture(source, target);
    events = await openEvents(inst, admin);
    url = source === 'sqlite' ? `sqlite:${target}` : target;
    const created = await admin.post('/api/v1/connections', { name: 'Shop DB', dialect: source, url });
    expect(created.status, created.text).toBe(201);
    id = created.body.data.connection.id;
    createdAnswer = created.body.data;
  });
  afterAll(async () => {
    events?.close();
    await inst?.close();
    await temp?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers 404 SCHEMA_NOT_INTROSPECTED before the first introspection, and 404 for an unknown connection', async () => {
    // POST /connections introspects; a connection saved before it did (or whose first reading
    // failed) has no snapshot yet.
    const legacy = await new ConnectionRepository(inst.app.kernel.meta, Date.now).insert({
      name: 'Never read',
      dialect: source,
      urlSealed: inst.app.kernel.secrets('connections').encrypt(url),
      target: targetOrRefuse(source, url),
      readOnly: false,
      test: { ok: true, result: { latencyMs: 1, serverVersion: 'x' } },
    });
    const api = (path: string) => `/api/v1/connections/${legacy.id}${path}`;
    for (const path of ['/schema', '/schema/diff']) {
      const res = await call(inst, admin, 'GET', api(path));
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('SCHEMA_NOT_INTROSPECTED');
    }
    expect((await call(inst, admin, 'POST', api('/generate'), {})).body.error.code).toBe('SCHEMA_NOT_INTROSPECTED');
    expect((await call(inst, admin, 'GET', api('/schema/snapshots'))).body.data).toEqual({ snapshots: [], nextCursor: null });
    expect((await call(inst, admin, 'GET', api('/schema/overrides'))).body.data).toEqual({
      overrides: { tables: [] },
      problems: [],
      snapshotId: null,
      updatedAt: null,
    });
    const unknown = await call(inst, admin, 'POST', '/api/v1/connections/00000000000000000000000000/introspect');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    expect((await call(inst, admin, 'DELETE', api(''))).status).toBe(200);
  });

  it('stores one snapshot for two introspections of an unchanged database (the first by POST /connections)', async () => {
    expect(createdAnswer.introspection).toMatchObject({ ok: true, snapshot: { tableCount: 15, viewCount: 2 }, error: null });
    const snapshots = (await call(inst, admin, 'GET', api('/schema/snapshots'))).body.data.snapshots;
    expect(snapshots).toHaveLength(1);
    const snap = snapshots[0];
    expect(snap.id).toBe(createdAnswer.introspection!.snapshot!.id);
    expect(snap).toMatchObject({ connectionId: id, dialect: source, tableCount: 15, viewCount: 2, previousSnapshotId: null });
    expect(snap.hash).toMatch(/^[0-9a-f]{64}$/);
    const changed = await events.waitFor((e) => e.kind === 'schema.changed' && e.data.snapshotId === snap.id);
    expect(changed.data).toEqual({ connectionId: id, snapshotId: snap.id, previousSnapshotId: null });

    const b = await call(inst, admin, 'POST', api('/introspect'));
    expect(b.status, b.text).toBe(200);
    expect(b.body.data).toEqual({ snapshot: snap, created: false });
    expect((await call(inst, admin, 'GET', api('/schema/snapshots'))).body.data.snapshots).toEqual([snap]);
    first = snap;
  });

  it('introspects in the background as a job when asked, answering 202 with the job', async () => {
    const res = await call(inst, admin, 'POST', api('/introspect?background=true'));
    expect(res.status, res.text).toBe(202);
    expect(res.body.data.job).toMatchObject({ kind: 'schema.introspect', state: 'queued' });
    const done = await inst.app.kernel.jobs.waitFor(res.body.data.job.id, 20_000);
    expect(done.state).toBe('succeeded');
    // Nothing changed since the last introspection: the job found the same structure.
    expect(done.result).toMatchObject({ snapshotId: first.id, created: false, tableCount: 15 });
  });

  it('answers the latest model with display metadata', async () => {
    const res = await call(inst, admin, 'GET', api('/schema'));
    expect(res.body.data).toMatchObject({ snapshotId: first.id, overrides: { tables: [] }, problems: [] });
    const user = res.body.data.model.tables.find((t: { ref: string }) => t.ref === 'user');
    expect(user.display).toEqual({ label: 'User', hidden: false, displayColumn: 'email' });
    expect(user.columns.find((c: { name: string }) => c.name === 'first name').display).toEqual({
      label: 'First name',
      hidden: false,
      personal: false,
      secret: false,
      format: null,
    });
  });

  it('stores overrides, applies them and reports none missing yet', async () => {
    const put = await call(inst, admin, 'PUT', api('/schema/overrides'), OVERRIDES);
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ overrides: OVERRIDES, problems: [], snapshotId: first.id });
    const schema = (await call(inst, admin, 'GET', api('/schema'))).body.data;
    const user = schema.model.tables.find((t: { ref: string }) => t.ref === 'user');
    expect(user.display).toEqual({ label: 'Customers', hidden: false, displayColumn: 'email' });
    expect(user.columns.find((c: { name: string }) => c.name === 'api_token').display).toMatchObject({ secret: true });
    expect(user.columns.find((c: { name: string }) => c.name === 'email').display).toMatchObject({ personal: true, format: 'email' });
    expect(schema.model.tables.find((t: { ref: string }) => t.ref === 'audit_event').display.hidden).toBe(true);
  });

  it('refuses bad overrides naming the field', async () => {
    const twice = await call(inst, admin, 'PUT', api('/schema/overrides'), { tables: [{ table: 'user' }, { table: 'user' }] });
    expect(twice.status).toBe(400);
    expect(issuePaths(twice)).toContain('body.tables.1.table');
    const format = await call(inst, admin, 'PUT', api('/schema/overrides'), { tables: [{ table: 'user', columns: [{ column: 'email', format: 'blink' }] }] });
    expect(format.status).toBe(400);
    expect(issuePaths(format)[0]).toMatch(/^body\.tables\.0\.columns\.0\.format/);
  });

  it('stores a new snapshot after the database changes, and the diff reports each change', async () => {
    await runScript(source, target, ALTER[source]);
    const res = await call(inst, admin, 'POST', api('/introspect'));
    expect(res.body.data.created).toBe(true);
    const snap = res.body.data.snapshot;
    expect(snap).toMatchObject({ previousSnapshotId: first.id, tableCount: 14 });
    expect(snap.hash).not.toBe(first.hash);
    expect(res.body.data.diff).toEqual({
      changed: true,
      tablesAdded: [],
      tablesRemoved: ['setting'],
      tablesChanged: expect.arrayContaining(['product', 'café', 'review']),
    });
    const changed = await events.waitFor((e) => e.kind === 'schema.changed' && e.data.snapshotId === snap.id);
    expect(changed.data.previousSnapshotId).toBe(first.id);

    const diff = (await call(inst, admin, 'GET', api('/schema/diff'))).body.data;
    expect(diff.from.id).toBe(first.id);
    expect(diff.to.id).toBe(snap.id);
    const table = (ref: string) => diff.diff.tables.changed.find((t: { table: string }) => t.table === ref);
    expect(diff.diff.tables.removed.map((t: { table: string }) => t.table)).toEqual(['setting']);
    expect(table('product').columns.added.map((c: { name: string }) => c.name)).toEqual(['barcode']);
    expect(table('product').columns.removed.map((c: { name: string }) => c.name)).toEqual(['weight_kg']);
    const rating = table('café').columns.changed.find((c: { name: string }) => c.name === 'rating');
    expect(rating.changes).toContainEqual({ field: 'type', from: 'float', to: 'decimal' });
    expect(table('review').foreignKeys.added).toEqual([
      expect.objectContaining({ columns: ['order_id'], referencedTable: 'order', referencedColumns: ['id'] }),
    ]);

    // Explicit bounds, either way round.
    const back = (await call(inst, admin, 'GET', api(`/schema/diff?from=${snap.id}&to=${first.id}`))).body.data.diff;
    expect(back.tables.added.map((t: { table: string }) => t.table)).toEqual(['setting']);
    expect((await call(inst, admin, 'GET', api(`/schema/diff?from=${first.id}&to=${first.id}`))).body.data.diff.changed).toBe(false);
    expect((await call(inst, admin, 'GET', api('/schema/diff?from=nope'))).status).toBe(404);
  });

  it('keeps overrides across re-introspection and reports those whose table or column is gone', async () => {
    const problems = [
      { table: 'product', column: 'weight_kg', reason: 'missing', override: 'column' },
      { table: 'setting', reason: 'missing', override: 'table' },
    ];
    const overrides = (await call(inst, admin, 'GET', api('/schema/overrides'))).body.data;
    expect(overrides.overrides).toEqual(OVERRIDES);
    expect(overrides.problems).toEqual(problems);
    const schema = (await call(inst, admin, 'GET', api('/schema'))).body.data;
    expect(schema.problems).toEqual(problems);
    expect(schema.model.tables.find((t: { ref: string }) => t.ref === 'user').display.label).toBe('Customers');
  });

  it('lists snapshots newest first with a cursor, and answers one with its model', async () => {
    const page1 = (await call(inst, admin, 'GET', api('/schema/snapshots?limit=1'))).body.data;
    expect(page1.snapshots).toHaveLength(1);
    expect(page1.nextCursor).not.toBeNull();
    const page2 = (await call(inst, admin, 'GET', api(`/schema/snapshots?limit=1&cursor=${page1.nextCursor}`))).body.data;
    expect(page2).toEqual({ snapshots: [first], nextCursor: null });
    expect((await call(inst, admin, 'GET', api('/schema/snapshots?cursor=garbage'))).status).toBe(400);
    const one = (await call(inst, admin, 'GET', api(`/schema/snapshots/${first.id}`))).body.data;
    expect(one.snapshot).toEqual(first);
    expect(one.model.tables.map((t: { name: string }) => t.name)).toContain('setting');
    expect((await call(inst, admin, 'GET', api('/schema/snapshots/00000000000000000000000000'))).status).toBe(404);
  });

  it('generates pages once, honouring hidden tables; a dry run writes nothing', async () => {
    const dry = (await call(inst, admin, 'POST', api('/generate'), { dryRun: true })).body.data;
    expect(dry.dryRun).toBe(true);
    expect(dry.existing).toEqual([]);
    expect(dry.created.every((p: { id: string | null }) => p.id === null)).toBe(true);
    const tables = new Set(dry.created.map((p: { table: string }) => p.table));
    expect(tables.has('audit_event')).toBe(false); // hidden
    expect(tables.has('user')).toBe(true);
    expect(dry.created.find((p: { table: string; kind: string }) => p.table === 'user' && p.kind === 'list')).toMatchObject({
      title: 'Customers',
      slug: 'shop-db-user',
    });
    // Views have no primary key: a list page only.
    expect(dry.skipped).toEqual(expect.arrayContaining([{ table: 'active_product', kind: 'detail', reason: 'no-primary-key' }]));
    const pages = () =>
      inst.app.kernel.db
        .withTables<{ pages: { id: string; connection_id: string | null } }>()
        .selectFrom('pages')
        .select('id')
        .where('connection_id', '=', id)
        .execute();
    expect(await pages()).toEqual([]);

    const run = (await call(inst, admin, 'POST', api('/generate'), {})).body.data;
    expect(run.created.map((p: { generatedKey: string; slug: string }) => [p.generatedKey, p.slug])).toEqual(
      dry.created.map((p: { generatedKey: string; slug: string }) => [p.generatedKey, p.slug]),
    );
    expect(run.created.every((p: { id: string | null }) => typeof p.id === 'string')).toBe(true);
    expect(await pages()).toHaveLength(run.created.length);

    const again = (await call(inst, admin, 'POST', api('/generate'), {})).body.data;
    expect(again.created).toEqual([]);
    expect(again.existing.map((p: { id: string }) => p.id).sort()).toEqual(run.created.map((p: { id: string }) => p.id).sort());
    expect(await pages()).toHaveLength(run.created.length);

    // A hidden table named on purpose is generated; an unknown one is refused by name.
    const hidden = (await call(inst, admin, 'POST', api('/generate'), { tables: ['audit_event'] })).body.data;
    expect(hidden.created.map((p: { kind: string; table: string }) => `${p.kind}:${p.table}`)).toEqual(['list:audit_event', 'detail:audit_event']);
    const unknown = await call(inst, admin, 'POST', api('/generate'), { tables: ['user', 'nope'] });
    expect(unknown.status).toBe(400);
    expect(issuePaths(unknown)).toEqual(['body.tables.1']);
  });

  it('lets a viewer read the schema but not introspect, override or generate (403)', async () => {
    for (const path of ['/schema', '/schema/snapshots', '/schema/diff', '/schema/overrides', `/schema/snapshots/${first.id}`]) {
      expect((await call(inst, viewer, 'GET', api(path))).status, path).toBe(200);
    }
    for (const [method, path, body] of [
      ['POST', '/introspect', undefined],
      ['PUT', '/schema/overrides', { tables: [] }],
      ['POST', '/generate', { dryRun: true }],
    ] as const) {
      const res = await call(inst, viewer, method, api(path), body);
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
  });

  it('audits introspections, override changes and generation', async () => {
    const rows = await inst.app.kernel.db.selectFrom('audit_log').select(['action', 'target_id']).where('action', 'like', 'schema.%').orderBy('id').execute();
    const actions = rows.map((r) => r.action);
    // The first reading was POST /connections': its audit entry says what it stored.
    expect(actions.filter((a) => a === 'schema.introspect')).toHaveLength(2);
    const create = await inst.app.kernel.db
      .selectFrom('audit_log')
      .select('diff')
      .where('action', '=', 'connections.create')
      .where('target_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(create.diff!).introspection).toEqual({ ok: true, snapshotId: first.id, error: null });
    expect(actions).toContain('schema.overrides.set');
    expect(actions).toContain('schema.generate');
    expect(rows.every((r) => r.target_id === id)).toBe(true);
  });
}

describe('schema of a SQLite connection (SQLite meta store)', () => schemaFlows('sqlite', 'sqlite'));
describe.runIf(pg)('schema of a PostgreSQL connection (PostgreSQL meta store)', () => schemaFlows('postgres', 'postgres'));
describe.runIf(mysql)('schema of a MariaDB connection (MariaDB meta store)', () => schemaFlows('mysql', 'mysql'));
