import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';

/** Real database servers for tests (DEVELOPERS.md: PostgreSQL and MariaDB on loopback). */
export const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const MYSQL_ADMIN_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

export type ServerDialect = 'postgres' | 'mysql';

async function probe(dialect: ServerDialect): Promise<boolean> {
  try {
    if (dialect === 'postgres') {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2000 });
      await c.connect();
      await c.end();
    } else {
      const c = await createConnection({ uri: MYSQL_ADMIN_URL, connectTimeout: 2000 });
      await c.end();
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a test file may use the server. Under CI=true a missing server fails the file
 * (a skipped test is not a passing test); elsewhere the tests are skipped, and it says so loudly.
 */
export async function databaseAvailable(dialect: ServerDialect): Promise<boolean> {
  const ok = await probe(dialect);
  if (ok) return true;
  const what = dialect === 'postgres' ? `PostgreSQL at ${PG_ADMIN_URL}` : `MariaDB/MySQL at ${MYSQL_ADMIN_URL}`;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${what} is not reachable: start it (see DEVELOPERS.md)`);
  console.warn(`\n!!! SKIPPING ${dialect} tests: ${what} is not reachable. CI would fail here. !!!\n`);
  return false;
}

export interface TempDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A fresh database `t_<random>` dropped by `drop()`; never shares state through `test`. */
export async function createTempDatabase(dialect: ServerDialect): Promise<TempDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    await admin.end();
    return {
      name,
      url: withDatabase(PG_ADMIN_URL, name),
      async drop() {
        const c = new pg.Client({ connectionString: PG_ADMIN_URL });
        await c.connect();
        await c.query(`drop database if exists "${name}" with (force)`);
        await c.end();
      },
    };
  }
  const admin = await createConnection({ uri: MYSQL_ADMIN_URL });
  await admin.query(`create database \`${name}\` character set utf8mb4 collate utf8mb4_bin`);
  await admin.end();
  return {
    name,
    url: withDatabase(MYSQL_ADMIN_URL, name),
    async drop() {
      const c = await createConnection({ uri: MYSQL_ADMIN_URL });
      await c.query(`drop database if exists \`${name}\``);
      await c.end();
    },
  };
}
