import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql, type Dialect as KyselyDialect } from 'kysely';
import type { Logger } from '../logger.js';
import { refusalsTagged } from './connect-refusals.js';
import { frozenGated, MetaFreeze } from './freeze.js';
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
  /** The current store's Kysely instance, through a proxy that follows a relocation (MR2). */
  readonly db: MetaDb;
  readonly dialect: Dialect;
  /** Delegates to the current store's helpers. */
  readonly helpers: MetaDialectHelpers;
  readonly placement: Placement;
  /** Row writes as they happen (caches of meta-store rows listen). */
  readonly writes: MetaWrites;
  /** The write gate a relocation closes (MR1). */
  readonly freeze: MetaFreeze;
  /** The store behind `db` now, with its URL (null: the embedded file). */
  current(): OpenedStore;
  /**
   * Makes `next` the store behind `db` (MR2): statements built from now on go there. Returns the
   * store it replaced, which the caller closes once its work in flight is done.
   */
  swap(next: OpenedStore): OpenedStore;
  /** Resolves true when a trivial query succeeds within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** One opened store: its own Kysely instance, never swapped. */
export interface OpenedStore {
  db: MetaDb;
  helpers: MetaDialectHelpers;
  placement: Placement;
  /** The URL it was opened with; null for the embedded SQLite file. */
  url: string | null;
}

const INT8_OID = 20;

export interface OpenStoreOptions {
  url: string | null;
  dataDir: string;
  log: Logger;
  /** The embedded file, when not `$dataDir/meta.sqlite`. */
  file?: string;
  writes?: MetaWrites;
  freeze?: MetaFreeze;
  /** The freeze generation the store serves in (a relocation's target: the next one). */
  generation?: number;
}

export function openMetaStore(opts: OpenStoreOptions): MetaStore {
  const writes = opts.writes ?? new MetaWrites();
  const freeze = opts.freeze ?? new MetaFreeze();
  return swappable(openStore({ ...opts, writes, freeze }), writes, freeze);
}

/** Opens one store, reporting its writes to `writes` and gated by `freeze` (a relocation's target, or the start's store). */
export function openStore(opts: OpenStoreOptions): OpenedStore {
  const writes = opts.writes ?? new MetaWrites();
  const gate = (d: KyselyDialect): KyselyDialect => (opts.freeze ? frozenGated(d, opts.freeze, opts.generation) : d);
  if (!opts.url) {
    mkdirSync(opts.dataDir, { recursive: true });
    const file = opts.file ?? join(opts.dataDir, 'meta.sqlite');
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
    return {
      db: new Kysely<KernelTables>({ dialect: gate(writesWatched(new SqliteDialect({ database: withStatementCache(database) }), writes)) }),
      helpers: sqliteHelpers,
      placement: { dialect: 'sqlite', location: file },
      url: null,
    };
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
    return {
      db: new Kysely<KernelTables>({ dialect: gate(writesWatched(refusalsTagged(new PostgresDialect({ pool })), writes)) }),
      helpers: postgresHelpers,
      placement: { dialect: 'postgres', location },
      url: metaUrl,
    };
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
  return {
    db: new Kysely<KernelTables>({ dialect: gate(writesWatched(refusalsTagged(new MysqlDialect({ pool })), writes)) }),
    helpers: mysqlHelpers,
    placement: { dialect: 'mysql', location: location.replace(/^mariadb:/, 'mysql:') },
    url: metaUrl,
  };
}

/**
 * The process's store: `db` is a proxy over the current store's Kysely instance whose methods
 * are bound to that instance (Kysely keeps its state in private fields), so what services kept
 * from their setup follows a swap (MR2).
 */
function swappable(first: OpenedStore, writes: MetaWrites, freeze: MetaFreeze): MetaStore {
  let now = first;
  let swaps = 0;
  const retired = new Set<OpenedStore>();
  /**
   * A proxy over `make(current instance)`: `db` itself, and what plugins derive from it at setup
   * (`withTables`, `withPlugin`, `withSchema` return new instances bound to the one they came
   * from, so each is followed the same way).
   */
  const follow = (make: (db: MetaDb) => MetaDb): MetaDb => {
    let seen = -1;
    let cur = first.db;
    let bound = new Map<PropertyKey, unknown>();
    const current = () => {
      if (seen !== swaps) {
        cur = make(now.db);
        seen = swaps;
        bound = new Map();
      }
      return cur;
    };
    const self: MetaDb = new Proxy(first.db, {
      get(_target, prop) {
        const target = current();
        const known = bound.get(prop);
        if (known !== undefined) return known;
        let value: unknown;
        if (prop === 'withTables') value = () => self;
        else if (prop === 'withPlugin' || prop === 'withoutPlugins' || prop === 'withSchema') {
          value = (...args: unknown[]) =>
            follow((db) => {
              const base = make(db);
              return (base[prop] as (...a: unknown[]) => MetaDb).apply(base, args);
            });
        } else {
          value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          value = (value as (...args: unknown[]) => unknown).bind(target);
        }
        bound.set(prop, value);
        return value;
      },
      has: (_target, prop) => Reflect.has(current(), prop),
    });
    return self;
  };
  const db = follow((d) => d);
  const helpers: MetaDialectHelpers = {
    get dialect() {
      return now.helpers.dialect;
    },
    get transactionalDdl() {
      return now.helpers.transactionalDdl;
    },
    withMigrationLock: (conn, fn) => now.helpers.withMigrationLock(conn, fn),
    isUnreachable: (err) => now.helpers.isUnreachable(err),
  };
  freeze.redirect = (compiled) => {
    const executor = now.db.getExecutor();
    const again = executor.compileQuery(executor.transformQuery(compiled.query, compiled.queryId), compiled.queryId);
    return executor.executeQuery(again);
  };
  let closed = false;
  return {
    db,
    writes,
    freeze,
    helpers,
    get dialect() {
      return now.helpers.dialect;
    },
    get placement() {
      return now.placement;
    },
    current: () => now,
    swap(next) {
      const old = now;
      now = next;
      swaps++;
      retired.add(old);
      return old;
    },
    async ping(timeoutMs = 2000) {
      let timer: NodeJS.Timeout | undefined;
      try {
        const probe = sql`select 1`.execute(now.db).then(() => true);
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
      await Promise.all([now, ...retired].map((s) => s.db.destroy().catch(() => undefined)));
    },
  };
}
