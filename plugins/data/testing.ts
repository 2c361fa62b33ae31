/** Fixtures for the data tests: the shared schema fixture in a real database, behind a connection. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { loadFixture, type FixtureDialect } from '../../test/fixtures/schema/load.js';
import { openDatabase } from '../../test/fixtures/schema/open.js';
import type { HttpClient, HttpResponse } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { activeUser, bootWithAdmin } from '../../test/helpers/identity.js';
import type { InstanceOptions, TestInstance } from '../../test/helpers/instance.js';

/** The dialects whose servers are reachable (SQLite always is); see databaseAvailable. */
export async function availableDialects(): Promise<FixtureDialect[]> {
  const out: FixtureDialect[] = ['sqlite'];
  if (await databaseAvailable('postgres')) out.push('postgres');
  if (await databaseAvailable('mysql')) out.push('mysql');
  return out;
}

export interface DataEnv {
  dialect: FixtureDialect;
  inst: TestInstance;
  admin: HttpClient;
  connectionId: string;
  /** The source database itself, for checks that must not go through the API. */
  db: Kysely<any>;
  /** The connection URL (for a second, read-only connection). */
  url: string;
  /** `/api/v1/data/<connection>/<table>[/<recordId>]…`, encoded. */
  path(table: string, ...rest: string[]): string;
  /** Requests through the contract checker. */
  req<T = any>(client: HttpClient, method: string, path: string, body?: unknown): Promise<HttpResponse<T>>;
  /** Creates rows through the API (bulk), answering their record ids. */
  seed(table: string, rows: Array<Record<string, unknown>>): Promise<string[]>;
  /** A signed-in user with these roles. */
  user(email: string, roleIds: string[]): Promise<HttpClient>;
  /** Creates a connection to the same database and introspects it. */
  connect(name: string, opts?: { readOnly?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/** An instance with the fixture loaded into a fresh database of `dialect`, connected and introspected. */
export async function dataEnv(dialect: FixtureDialect, opts: InstanceOptions = {}): Promise<DataEnv> {
  const { inst, admin } = await bootWithAdmin(opts);
  let temp: TempDatabase | null = null;
  let dir: string | null = null;
  let target: string;
  if (dialect === 'sqlite') {
    dir = mkdtempSync(join(tmpdir(), 'data-src-'));
    target = join(dir, 'shop.db');
  } else {
    temp = await createTempDatabase(dialect);
    target = temp.url;
  }
  await loadFixture(dialect, target);
  const url = dialect === 'sqlite' ? `sqlite:${target}` : target;
  const db = openDatabase(dialect, target);
  const req = <T = any>(client: HttpClient, method: string, path: string, body?: unknown) => call<T>(inst, client, method, path, body);
  const connect = async (name: string, o: { readOnly?: boolean } = {}) => {
    const created = await req(admin, 'POST', '/api/v1/connections', { name, dialect, url, ...o });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.connection.id as string;
    const introspected = await req(admin, 'POST', `/api/v1/connections/${id}/introspect`);
    expect(introspected.status, introspected.text).toBe(200);
    return id;
  };
  const connectionId = await connect('Shop');
  const path = (table: string, ...rest: string[]) =>
    ['/api/v1/data', connectionId, table, ...rest].map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join('/');
  return {
    dialect,
    inst,
    admin,
    connectionId,
    db,
    url,
    path,
    req,
    connect,
    async seed(table, rows) {
      const ids: string[] = [];
      for (let i = 0; i < rows.length; i += 500) {
        const res = await req(admin, 'POST', path(table, 'bulk'), { operations: rows.slice(i, i + 500).map((values) => ({ op: 'create', values })) });
        expect(res.status, res.text).toBe(200);
        ids.push(...res.body.data.results.map((r: { recordId: string }) => r.recordId));
      }
      return ids;
    },
    user: async (email, roleIds) => (await activeUser(inst, admin, email, roleIds)).client,
    async close() {
      await db.destroy();
      await inst.close();
      await temp?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** base64url of the JSON array of a composite key's values. */
export const compositeId = (...values: unknown[]) => Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');

/** Query strings with the brackets of filter[col][op] left readable. */
export function qs(params: Record<string, string | number>): string {
  return (
    '?' +
    Object.entries(params)
      .map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(String(v))}`)
      .join('&')
  );
}
