import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { activeUser, bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { connectSqlite, sqliteSource, type SqliteSource } from '../../test/helpers/sqlite-source.js';

/*
 * SC6: a role given data.read on part of a connection reads that part of its schema and the
 * connection's name and read-only flag, without connections.read; not where the database lives,
 * not the other tables or columns, and nothing of a connection its grants do not reach.
 */
describe('a scoped data reader on GET /connections/{id}/schema and GET /connections/{id} (SC6)', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SqliteSource;
  let conn: string;
  let other: string;
  let reader: HttpClient;
  let wholeTable: HttpClient;
  let none: HttpClient;

  async function roleWith(name: string, grants: unknown[]): Promise<string> {
    const role = await admin.post('/api/v1/roles', { name });
    expect(role.status, role.text).toBe(201);
    const put = await admin.put(`/api/v1/roles/${role.body.data.role.id}/permissions`, { grants });
    expect(put.status, put.text).toBe(200);
    return role.body.data.role.id as string;
  }

  beforeAll(async () => {
    source = sqliteSource('reader', (db) =>
      db.exec(`
        create table customers (id integer primary key, full_name text not null, email text not null unique, notes text, check (length(full_name) > 0));
        create table orders (id integer primary key, customer_id integer references customers(id), amount numeric);
        create table secrets (id integer primary key, value text);
        create index customers_email_notes on customers (email, notes);`),
    );
    ({ inst, admin } = await bootWithAdmin());
    conn = await connectSqlite(admin, source.file, 'Shop');
    other = await connectSqlite(admin, source.file, 'Other');
    const names = await roleWith('Customer names', [{ permission: 'data.read', scope: { connectionId: conn, table: 'customers', columns: ['full_name'] } }]);
    const both = await roleWith('Customers and orders', [
      { permission: 'data.read', scope: { connectionId: conn, table: 'customers' } },
      { permission: 'data.read', scope: { connectionId: conn, table: 'orders' } },
    ]);
    const pagesOnly = await roleWith('Pages only', [{ permission: 'pages.read' }]);
    reader = (await activeUser(inst, admin, 'names@example.com', [names])).client;
    wholeTable = (await activeUser(inst, admin, 'both@example.com', [both])).client;
    none = (await activeUser(inst, admin, 'none@example.com', [pagesOnly])).client;
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    source?.dispose();
  });

  it('answers the granted tables and columns only, with the constraints made of them', async () => {
    const res = await reader.get(`/api/v1/connections/${conn}/schema`);
    expect(res.status, res.text).toBe(200);
    const tables = res.body.data.model.tables as Array<{
      ref: string;
      columns: Array<{ name: string }>;
      uniques: unknown[];
      indexes: unknown[];
      checks: unknown[];
    }>;
    expect(tables.map((t) => t.ref)).toEqual(['customers']);
    // The key addresses the row (DA2); the granted column; nothing else.
    expect(tables[0]!.columns.map((c) => c.name)).toEqual(['id', 'full_name']);
    expect(tables[0]!.uniques).toEqual([]);
    expect(tables[0]!.indexes).toEqual([]);
    expect(tables[0]!.checks).toEqual([]);
    expect(res.body.data.overrides).toEqual({ tables: [] });
    expect(res.body.data.problems).toEqual([]);
    // The same reader reads those rows through the data API: the two agree.
    const rows = await reader.get(`/api/v1/data/${conn}/customers?limit=1`);
    expect(rows.status, rows.text).toBe(200);
  });

  it('keeps a foreign key only when the table it points at is shown too', async () => {
    const res = await wholeTable.get(`/api/v1/connections/${conn}/schema`);
    expect(res.status, res.text).toBe(200);
    const tables = res.body.data.model.tables as Array<{ ref: string; columns: unknown[]; foreignKeys: Array<{ referencedTable: string }> }>;
    expect(tables.map((t) => t.ref).sort()).toEqual(['customers', 'orders']);
    expect(tables.find((t) => t.ref === 'orders')!.foreignKeys.map((fk) => fk.referencedTable)).toEqual(['customers']);
    expect(tables.find((t) => t.ref === 'customers')!.columns).toHaveLength(4);
  });

  it("answers the connection's name and read-only flag, not where it lives", async () => {
    const full = (await admin.get(`/api/v1/connections/${conn}`)).body.data.connection;
    expect(full.database).toBe(source.file);
    const res = await reader.get(`/api/v1/connections/${conn}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.connection).toEqual({ ...full, host: null, port: null, database: null, user: null, tls: null, serverVersion: null, lastTest: null });
  });

  it('refuses a connection the grants do not reach, and a caller without any, naming connections.read', async () => {
    for (const [who, id] of [
      [reader, other],
      [none, conn],
      [reader, 'no-such-connection'],
    ] as const) {
      for (const path of [`/api/v1/connections/${id}/schema`, `/api/v1/connections/${id}`]) {
        const res = await who.get(path);
        expect(res.status, path).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'connections.read' } });
      }
    }
    // Listing connections still needs connections.read.
    expect((await reader.get('/api/v1/connections')).status).toBe(403);
  });
});
