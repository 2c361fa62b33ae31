import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import type { Logger } from '../../kernel/logger.js';
import { openMetaStore, type MetaStore } from '../../kernel/meta/store.js';
import type { Migration } from '../../kernel/plugin/manifest.js';
import { createTempDatabase } from '../helpers/databases.js';

export type MetaDialect = 'sqlite' | 'postgres' | 'mysql';

export interface LogLine {
  level: string;
  args: unknown[];
}

/** A logger that keeps what it was told, so a test can see a warning without printing it. */
export function recordingLogger(lines: LogLine[] = []): Logger & { lines: LogLine[] } {
  const at =
    (level: string) =>
    (...args: unknown[]) => {
      lines.push({ level, args });
    };
  const log = {
    lines,
    level: 'trace',
    fatal: at('fatal'),
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    trace: at('trace'),
    silent: () => undefined,
    child: () => log,
  };
  return log as unknown as Logger & { lines: LogLine[] };
}

/**
 * Where a meta store for one test lives: a fresh server database, or a fresh data dir for the
 * embedded SQLite file. Several stores may be opened on one target (replicas).
 */
export interface StoreTarget {
  dialect: MetaDialect;
  url: string | null;
  dataDir: string;
  open(log?: Logger): MetaStore;
  /** Closes every store opened here, then drops the database / removes the dir. */
  dispose(): Promise<void>;
}

export async function createStoreTarget(dialect: MetaDialect): Promise<StoreTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-meta-test-'));
  const temp = dialect === 'sqlite' ? null : await createTempDatabase(dialect);
  const opened: MetaStore[] = [];
  return {
    dialect,
    url: temp?.url ?? null,
    dataDir,
    open(log = recordingLogger()) {
      const store = openMetaStore({ url: temp?.url ?? null, dataDir, log });
      opened.push(store);
      return store;
    },
    async dispose() {
      await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
      await temp?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

export async function tableExists(store: MetaStore, table: string): Promise<boolean> {
  // The catalogue answers "no" where selecting from a missing table would throw, and the
  // message of that throw differs per dialect.
  let rows: unknown[];
  if (store.dialect === 'sqlite') {
    rows = (await sql`select name from sqlite_master where type = 'table' and name = ${table}`.execute(store.db)).rows;
  } else if (store.dialect === 'postgres') {
    rows = (await sql`select table_name from information_schema.tables where table_schema = current_schema() and table_name = ${table}`.execute(store.db)).rows;
  } else {
    rows = (await sql`select table_name from information_schema.tables where table_schema = database() and table_name = ${table}`.execute(store.db)).rows;
  }
  return rows.length > 0;
}

export async function recordedMigrations(store: MetaStore): Promise<string[]> {
  const rows = await (store.db as AnyDb).selectFrom('kernel_migrations').select(['plugin', 'name']).execute();
  return rows.map((r: { plugin: string; name: string }) => `${r.plugin}/${r.name}`).sort();
}

/**
 * A plugin's migrations that count how often each ran, in which order, and can be slowed down
 * so that a second runner surely arrives while the first one still holds the lock.
 */
export function countingMigrations(prefix: string, opts: { delayMs?: number } = {}) {
  const calls: string[] = [];
  const migrations: Migration[] = [
    {
      name: '0001_create',
      async up(db: AnyDb) {
        calls.push('0001_create');
        await db.schema
          .createTable(`${prefix}_items`)
          .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
          .addColumn('label', 'varchar(100)', (c) => c.notNull())
          .execute();
        if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      },
    },
    {
      name: '0002_seed',
      async up(db: AnyDb) {
        calls.push('0002_seed');
        // Reads what 0001 made: fails unless the two ran in declaration order.
        await db.insertInto(`${prefix}_items`).values({ id: 'first', label: 'seeded' }).execute();
      },
    },
    {
      name: '0003_alter',
      async up(db: AnyDb) {
        calls.push('0003_alter');
        await db.schema.alterTable(`${prefix}_items`).addColumn('note', 'varchar(100)').execute();
      },
    },
  ];
  return { calls, migrations };
}

/**
 * Polls `probe` until it returns true; bounded by a deadline (not a count, since one probe of
 * an unreachable store may itself take seconds) so a store that never recovers fails the test.
 */
export async function eventually(probe: () => Promise<boolean>, what: string, withinMs = 20_000, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`${what} did not happen within ${withinMs} ms`);
}

/** Resolves 'timed-out' unless `work` settles first; the timer never outlives the race. */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | 'timed-out'> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'timed-out'>((r) => {
    timer = setTimeout(() => r('timed-out'), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}
