/**
 * Add-ons' `ctx.db` on a SQLite source runs its statements in a worker thread
 * (engine/sources/sqlite-off-thread.ts), through a kysely dialect whose driver posts each statement there:
 * the row layer is the same, only where better-sqlite3 blocks changes (DESIGN D25: an add-on
 * never slows the API process for long). One worker serves every file; each file has one
 * kysely connection at a time (as kysely's own SQLite driver), so a transaction's statements
 * are not interleaved with another's on the same file.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { SqliteWorker as EngineSqliteWorker } from '../../../engine/sources/sqlite-off-thread.js';
// ADDON_TIMEOUT is the sandbox's code, registered by loading kernel/api.ts.
import { AppError } from '../../../kernel/api.js';

/** An error as better-sqlite3 threw it in the worker: the row layer reads its code and message. */
class SqliteError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

const timedOut = () => new AppError('ADDON_TIMEOUT', { message: "The host call did not finish within the call's wall time." });

/** The deadline (epoch ms) of the host call whose statements run inside `fn`. */
const deadlines = new AsyncLocalStorage<number>();
export function withStatementDeadline<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
  return deadlines.run(deadline, fn);
}

/**
 * The add-ons' thread: the engine's SqliteWorker, whose statements past their host call's
 * deadline fail with ADDON_TIMEOUT.
 */
export class SqliteWorker extends EngineSqliteWorker {
  constructor() {
    super({ timedOut, name: 'add-ons SQLite' });
  }
}

/** A promise chain per file: one kysely connection at a time. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

export interface OffThreadTarget {
  file: string;
  readOnly: boolean;
  /** Bytes a read may bring back before it fails with PAYLOAD_TOO_LARGE. */
  maxBytes: number;
}

function driver(worker: SqliteWorker, target: OffThreadTarget): Driver {
  const mutex = new Mutex();
  /** The thread the open transaction began in; null outside one. */
  let txGeneration: number | null = null;
  const connection: DatabaseConnection = {
    async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
      const a = await worker.run(
        { file: target.file, readOnly: target.readOnly, sql: q.sql, parameters: [...q.parameters], maxBytes: target.maxBytes },
        { deadline: deadlines.getStore() ?? null, generation: txGeneration },
      );
      if (!a.ok) {
        if (a.tooLarge)
          throw new AppError('PAYLOAD_TOO_LARGE', {
            message: `The rows are over ${Math.round(target.maxBytes / (1024 * 1024))} MiB: ask for fewer (limit).`,
          });
        if (a.late) throw timedOut();
        throw new SqliteError(a.message, a.code);
      }
      return {
        rows: a.rows as R[],
        ...(a.lastInsertRowid === null ? {} : { numAffectedRows: BigInt(a.changes), insertId: BigInt(a.lastInsertRowid) }),
      };
    },
    streamQuery() {
      throw new Error('streaming is not offered to add-ons');
    },
  };
  let release: (() => void) | null = null;
  return {
    async init() {},
    async acquireConnection() {
      release = await mutex.lock();
      return connection;
    },
    async beginTransaction(c: DatabaseConnection, _settings: TransactionSettings) {
      txGeneration = worker.generation;
      await c.executeQuery(CompiledQuery.raw('begin'));
    },
    async commitTransaction(c: DatabaseConnection) {
      try {
        await c.executeQuery(CompiledQuery.raw('commit'));
      } finally {
        txGeneration = null;
      }
    },
    async rollbackTransaction(c: DatabaseConnection) {
      const generation = txGeneration;
      txGeneration = null;
      // The thread it began in is gone, and the transaction with its handle.
      if (generation !== worker.generation) return;
      await c.executeQuery(CompiledQuery.raw('rollback'));
    },
    async releaseConnection() {
      txGeneration = null;
      const r = release;
      release = null;
      r?.();
    },
    async destroy() {},
  };
}

/** A kysely handle on `target.file` whose statements run in `worker`. */
// The add-on's tables are not known at compile time.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function offThreadSqlite(worker: SqliteWorker, target: OffThreadTarget): Kysely<any> {
  return new Kysely({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver(worker, target),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
}
