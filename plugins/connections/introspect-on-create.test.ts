/** A new connection can be read at once: POST /connections reads its schema (no SCHEMA_NOT_INTROSPECTED). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { sqliteDatabase } from './testing.js';

const available = await databaseAvailable('postgres');

let inst: TestInstance;
let admin: HttpClient;
let dir: string;
let temp: TempDatabase | null = null;
const api = (method: string, path: string, body?: unknown) => call(inst, admin, method, `/api/v1${path}`, body);

beforeAll(async () => {
  ({ inst, admin } = await bootWithAdmin());
  dir = mkdtempSync(join(tmpdir(), 'conn-intro-'));
});
afterAll(async () => {
  await inst?.close();
  await temp?.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function createAndRead(dialect: 'sqlite' | 'postgres', url: string) {
  const created = await api('POST', '/connections', { name: `Fresh ${dialect}`, dialect, url });
  expect(created.status, created.text).toBe(201);
  const { connection, introspection } = created.body.data;
  expect(introspection).toEqual({ ok: true, snapshot: { id: expect.any(String), tableCount: 1, viewCount: 0, columnCount: 2 }, error: null });
  const rows = await api('GET', `/data/${connection.id}/items`);
  expect(rows.status, rows.text).toBe(200);
  expect(rows.body.data.rows).toEqual([expect.objectContaining({ label: 'one' })]);
  // The snapshot answered is the one the schema routes know.
  expect((await api('GET', `/connections/${connection.id}/schema`)).body.data.snapshotId).toBe(introspection.snapshot.id);
}

describe('POST /connections reads the schema', () => {
  it('so GET /data works at once on SQLite', async () => {
    await createAndRead('sqlite', `sqlite:${sqliteDatabase(dir, 'fresh.db')}`);
  });

  it.runIf(available)('so GET /data works at once on PostgreSQL', async () => {
    temp = await createTempDatabase('postgres');
    const c = new pg.Client({ connectionString: temp.url });
    await c.connect();
    await c.query("create table items (id serial primary key, label text not null); insert into items (label) values ('one')");
    await c.end();
    await createAndRead('postgres', temp.url);
  });

  it('saves the connection when reading the schema fails, and says why', async () => {
    // A virtual table of a module this server lacks (SpatiaLite, say): the database opens and
    // answers, but its schema cannot be read.
    const file = join(dir, 'broken.db');
    const db = new Database(file);
    db.exec('create table t (x integer)');
    db.unsafeMode(true);
    db.pragma('writable_schema = ON');
    db.exec("insert into sqlite_master (type, name, tbl_name, rootpage, sql) values ('table', 'v', 'v', 0, 'CREATE VIRTUAL TABLE v USING nosuchmodule(x)')");
    db.close();
    const created = await api('POST', '/connections', { name: 'Broken schema', dialect: 'sqlite', url: `sqlite:${file}` });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.introspection).toMatchObject({ ok: false, snapshot: null, error: { code: expect.any(String), message: expect.any(String) } });
    const id = created.body.data.connection.id;
    expect((await api('GET', `/connections/${id}`)).status).toBe(200);
    expect((await api('GET', `/connections/${id}/schema`)).body.error.code).toBe('SCHEMA_NOT_INTROSPECTED');
  });
});
