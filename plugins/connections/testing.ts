/** Fixtures for the connections tests: source databases with passwords, a probe plugin, counters. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { z } from 'zod';
import { route } from '../../kernel/contract/route.js';
import { dataOf } from '../../kernel/contract/shapes.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { createTempDatabase, MYSQL_ADMIN_URL, PG_ADMIN_URL, type TempDatabase } from '../../test/helpers/databases.js';
import { connectionsRef } from './provides.js';

export interface SourceFixture {
  url: string;
  /** The password inside `url` (null for SQLite), to check it never comes back. */
  password: string | null;
  /** Another database of the same dialect, for PATCH url. */
  otherUrl: string;
  /** Server database name (for pg_stat_activity) or file. */
  database: string;
  cleanup(): Promise<void>;
}

export const secretPassword = () => `pw-${randomBytes(9).toString('hex')}`;

export function withCredentials(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/** A SQLite database file with one table. */
export function sqliteDatabase(dir: string, name: string): string {
  const file = join(dir, name);
  const db = new Database(file);
  db.exec("create table items (id integer primary key, label text not null); insert into items (label) values ('one')");
  db.close();
  return file;
}

/** A MariaDB user with a password, allowed on `database`. */
export async function mysqlUser(database: string): Promise<{ user: string; password: string; drop(): Promise<void> }> {
  const user = `u_${randomBytes(5).toString('hex')}`;
  const password = secretPassword();
  const admin = await createConnection({ uri: MYSQL_ADMIN_URL });
  await admin.query(`create user '${user}'@'%' identified by '${password}'`);
  await admin.query(`grant all on \`${database}\`.* to '${user}'@'%'`);
  await admin.end();
  return {
    user,
    password,
    async drop() {
      const c = await createConnection({ uri: MYSQL_ADMIN_URL });
      await c.query(`drop user if exists '${user}'@'%'`);
      await c.end();
    },
  };
}

/**
 * A source of each dialect whose URL carries a password. PostgreSQL on loopback trusts every
 * client (pg_hba), so any password gets in; the point there is that it never comes back.
 */
export async function sourceFixture(dialect: 'postgres' | 'mysql' | 'sqlite'): Promise<SourceFixture> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'conn-src-'));
    const file = sqliteDatabase(dir, 'source.db');
    const other = sqliteDatabase(dir, 'other.db');
    return {
      url: `sqlite:${file}`,
      password: null,
      otherUrl: `sqlite:${other}`,
      database: file,
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const temps: TempDatabase[] = [await createTempDatabase(dialect), await createTempDatabase(dialect)];
  const [main, other] = temps as [TempDatabase, TempDatabase];
  if (dialect === 'postgres') {
    const password = secretPassword();
    return {
      url: withCredentials(main.url, 'postgres', password),
      password,
      otherUrl: withCredentials(other.url, 'postgres', password),
      database: main.name,
      cleanup: async () => void (await Promise.all(temps.map((t) => t.drop()))),
    };
  }
  const u = await mysqlUser(main.name);
  const admin = await createConnection({ uri: MYSQL_ADMIN_URL });
  await admin.query(`grant all on \`${other.name}\`.* to '${u.user}'@'%'`);
  await admin.end();
  return {
    url: withCredentials(main.url, u.user, u.password),
    password: u.password,
    otherUrl: withCredentials(other.url, u.user, u.password),
    database: main.name,
    cleanup: async () => {
      await u.drop();
      await Promise.all(temps.map((t) => t.drop()));
    },
  };
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((res) => server.close(() => res()));
  return port;
}

/** A server that accepts connections and never says a word: a connect that must time out. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

/** This service's sessions on a PostgreSQL database (application_name svc-admin). */
export async function pgSessions(database: string): Promise<number> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    const res = await c.query<{ n: string }>(`select count(*) as n from pg_stat_activity where datname = $1 and application_name = 'svc-admin'`, [database]);
    return Number(res.rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

/** Polls `read` until it gives `want` (a server ends a backend a moment after the client hangs up). */
export async function eventually<T>(read: () => Promise<T>, want: T, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (last !== want && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

const probeParams = z.object({ id: z.string() });
const probeAnswer = dataOf(z.strictObject({ value: z.string() }));

/**
 * A plugin using the connections plugin the way others do, through ConnectionsProvides:
 * `withSource` runs one query, `source` hands out the pool, `setting` reads a session setting.
 */
export const probePlugin = definePlugin({
  name: 'conn-probe',
  version: '1.0.0',
  requires: ['connections'],
  permissions: [{ name: 'conn-probe.use', label: 'Probe', description: 'Test-only probe of source databases.', roles: ['viewer'] }],
  routes: [
    route({
      method: 'GET',
      url: '/probe/:id/ping',
      summary: 'one query through withSource',
      permission: 'conn-probe.use',
      schema: { params: probeParams, response: { 200: probeAnswer } },
      handler: async ({ kernel, params }) => {
        const value = await kernel.plugin(connectionsRef).withSource(params.id, async (db) => {
          const res = await sql<{ v: unknown }>`select 1 as v`.execute(db);
          return String(res.rows[0]?.v);
        });
        return { data: { value } };
      },
    }),
    route({
      method: 'GET',
      url: '/probe/:id/source',
      summary: 'the handle from source()',
      permission: 'conn-probe.use',
      schema: { params: probeParams, response: { 200: probeAnswer } },
      handler: async ({ kernel, params }) => {
        const { info } = await kernel.plugin(connectionsRef).source(params.id);
        return { data: { value: `${info.name}:${info.dialect}:${info.readOnly}` } };
      },
    }),
    route({
      method: 'GET',
      url: '/probe/:id/setting/:name',
      summary: 'a PostgreSQL session setting as the pool sees it',
      permission: 'conn-probe.use',
      schema: {
        params: z.object({ id: z.string(), name: z.enum(['statement_timeout', 'default_transaction_read_only', 'search_path']) }),
        response: { 200: probeAnswer },
      },
      handler: async ({ kernel, params }) => {
        const value = await kernel.plugin(connectionsRef).withSource(params.id, async (db) => {
          const res = await sql<Record<string, string>>`select current_setting(${params.name}) as v`.execute(db);
          return String(res.rows[0]?.v);
        });
        return { data: { value } };
      },
    }),
  ],
});
