/**
 * Add-ons' `ctx.db` on a SQLite source runs its statements in a worker thread
 * (addon-sqlite-worker.ts), through a kysely dialect whose driver posts each statement there:
 * the row layer is the same, only where better-sqlite3 blocks changes (DESIGN D25: an add-on
 * never slows the API process for long). One worker serves every file; each file has one
 * kysely connection at a time (as kysely's own SQLite driver), so a transaction's statements
 * are not interleaved with another's on the same file.
 */
import type { Worker } from 'node:worker_threads';
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
import { AppError } from '../../kernel/errors.js';
import { startWorker } from '../../kernel/workers.js';
import type { SqliteAnswer, SqliteJob } from './addon-sqlite-worker.js';

const WORKER_ENTRY = new URL('./addon-sqlite-worker.ts', import.meta.url);

/** An error as better-sqlite3 threw it in the worker: the row layer reads its code and message. */
class SqliteError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

export class SqliteWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (a: SqliteAnswer) => void; reject: (e: unknown) => void }>();

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(WORKER_ENTRY, { execArgv: [] });
    worker.on('message', (a: SqliteAnswer) => {
      const w = this.waiting.get(a.id);
      this.waiting.delete(a.id);
      w?.resolve(a);
    });
    const fail = (err: unknown) => {
      if (this.worker === worker) this.worker = null;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the add-ons SQLite worker stopped')));
    // Idle, it keeps nothing alive; a statement in flight does (its promise is awaited).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  run(job: Omit<SqliteJob, 'id'>): Promise<SqliteAnswer> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ ...job, id } satisfies SqliteJob);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
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
  const connection: DatabaseConnection = {
    async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
      const a = await worker.run({ file: target.file, readOnly: target.readOnly, sql: q.sql, parameters: [...q.parameters], maxBytes: target.maxBytes });
      if (!a.ok) {
        if (a.tooLarge)
          throw new AppError('PAYLOAD_TOO_LARGE', {
            message: `The rows are over ${Math.round(target.maxBytes / (1024 * 1024))} MiB: ask for fewer (limit).`,
          });
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
      await c.executeQuery(CompiledQuery.raw('begin'));
    },
    async commitTransaction(c: DatabaseConnection) {
      await c.executeQuery(CompiledQuery.raw('commit'));
    },
    async rollbackTransaction(c: DatabaseConnection) {
      await c.executeQuery(CompiledQuery.raw('rollback'));
    },
    async releaseConnection() {
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
