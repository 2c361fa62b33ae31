import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Logger } from '../logger.js';
import { refusalsTagged } from './connect-refusals.js';
import { mysqlHelpers } from './dialects/mysql.js';
import { postgresHelpers } from './dialects/postgres.js';
import { sqliteHelpers } from './dialects/sqlite.js';
import { keepPreparedStatements as keepMysqlPreparedStatements, MYSQL_MAX_PREPARED } from './mysql-statements.js';
import { keepPreparedStatements } from './pg-statements.js';
import { withStatementCache } from './sqlite-statements.js';
import { MetaWrites, writesWatched } from './write-watch.js';
import type { MetaDialectHelpers } from './dialects/types.js';
import type { Dialect, KernelTables, MetaDb } from './types.js';

export interface Placement {
  dialect: Dialect;
  /** Where the store lives, with any credentials removed. */
  location: string;
}

export interface MetaStore {
  db: MetaDb;
  dialect: Dialect;
  helpers: MetaDialectHelpers;
  placement: Placement;
  /** Row writes as they happen (caches of meta-store rows listen). */
  writes: MetaWrites;
  /** Resolves true when a trivial query succeeds within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

const INT8_OID = 20;

export function openMetaStore(opts: { url: string | null; dataDir: string; log: Logger }): MetaStore {
  const writes = new MetaWrites();
  if (!opts.url) {
    mkdirSync(opts.dataDir, { recursive: true });
    const file = join(opts.dataDir, 'meta.sqlite');
    const database = new Database(file);
    // Before journal_mode: switching a new file to WAL needs a lock another process may hold.
    database.pragma('busy_timeout = 5000');
    database.pragma('journal_mode = WAL');
    database.pragma('foreign_keys = ON');
    database.pragma('synchronous = NORMAL');
    // better-sqlite3 builds SQLite with a 16 MB page cache; the meta driver's file chunks fill it,
    // and a process keeps it (bench/README.md, the file store's drivers). SQLite's own default,
    // 2 MB, holds the meta store's hot rows.
    database.pragma('cache_size = -2000');
    return finish(
      new Kysely<KernelTables>({ dialect: writesWatched(new SqliteDialect({ database: withStatementCache(database) }), writes) }),
      sqliteHelpers,
      { dialect: 'sqlite', location: file },
      writes,
    );
  }
  const metaUrl = opts.url;
  const url = new URL(metaUrl);
  const location = `${url.protocol}//${url.host}${url.pathname}`;
  if (url.protocol === 'postgres:' || url.protocol === 'postgresql:') {
    // Drivers load on first use (pg and mysql2 cost ~15 MB each; most processes need one or neither).
    const pool = async () => {
      const { default: pg } = await import('pg');
      const pool = new pg.Pool({
        connectionString: metaUrl,
        max: 10,
        connectionTimeoutMillis: 3000,
        idleTimeoutMillis: 30_000,
        // Timestamps are bigint milliseconds; they fit a JS number exactly.
        types: {
          getTypeParser: ((oid: number, format?: string) =>
            oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
        },
      });
      // A client losing its server emits 'error'; unheard, that crashes the process. pg-pool
      // listens only while a client is idle, so every client also gets a listener of its own for
      // the time it is checked out (its query fails, and the pool discards it on release).
      const lost = (err: Error) => opts.log.warn({ err: { message: err.message } }, 'meta store connection lost');
      pool.on('connect', (client) => {
        client.on('error', lost);
        keepPreparedStatements(client);
      });
      pool.on('error', () => undefined); // already reported by the client's own listener
      return pool;
    };
    return finish(
      new Kysely<KernelTables>({ dialect: writesWatched(refusalsTagged(new PostgresDialect({ pool })), writes) }),
      postgresHelpers,
      { dialect: 'postgres', location },
      writes,
    );
  }
  const pool = async () => {
    const { default: mysql } = await import('mysql2');
    const pool = mysql.createPool({
      uri: metaUrl,
      connectionLimit: 10,
      connectTimeout: 3000,
      charset: 'utf8mb4',
      timezone: 'Z',
      maxPreparedStatements: MYSQL_MAX_PREPARED,
    });
    pool.on('connection', (conn) => {
      conn.on('error', (err) => opts.log.warn({ err: { message: err.message } }, 'meta store connection lost'));
      keepMysqlPreparedStatements(conn, mysql.TypedParameter);
    });
    return pool;
  };
  return finish(
    new Kysely<KernelTables>({ dialect: writesWatched(refusalsTagged(new MysqlDialect({ pool })), writes) }),
    mysqlHelpers,
    { dialect: 'mysql', location: location.replace(/^mariadb:/, 'mysql:') },
    writes,
  );
}

function finish(db: MetaDb, helpers: MetaDialectHelpers, placement: Placement, writes: MetaWrites): MetaStore {
  let closed = false;
  return {
    db,
    writes,
    dialect: helpers.dialect,
    helpers,
    placement,
    async ping(timeoutMs = 2000) {
      let timer: NodeJS.Timeout | undefined;
      try {
        const probe = sql`select 1`.execute(db).then(() => true);
        const timeout = new Promise<boolean>((res) => {
          timer = setTimeout(() => res(false), timeoutMs);
        });
        return await Promise.race([probe, timeout]);
      } catch {
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
