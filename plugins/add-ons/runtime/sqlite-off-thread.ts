/**
 * Add-ons' `ctx.db` on a SQLite source runs its statements in a worker thread
 * (addon-sqlite-worker.ts), through a kysely dialect whose driver posts each statement there:
 * the row layer is the same, only where better-sqlite3 blocks changes (DESIGN D25: an add-on
 * never slows the API process for long). One worker serves every file; each file has one
 * kysely connection at a time (as kysely's own SQLite driver), so a transaction's statements
 * are not interleaved with another's on the same file.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
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
// ADDON_TIMEOUT is the sandbox's code, registered by loading kernel/api.ts.
import { AppError, startWorker } from '../../../kernel/api.js';
import type { SqliteAnswer, SqliteJob, SqliteWorkerData } from './addon-sqlite-worker.js';

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

const timedOut = () => new AppError('ADDON_TIMEOUT', { message: "The host call did not finish within the call's wall time." });

/** The deadline (epoch ms) of the host call whose statements run inside `fn`. */
const deadlines = new AsyncLocalStorage<number>();
export function withStatementDeadline<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
  return deadlines.run(deadline, fn);
}

interface Waiting {
  job: SqliteJob;
  /** The worker generation a transaction's statement must run in (its `begin` ran there); null outside one. */
  generation: number | null;
  timer: NodeJS.Timeout | null;
  resolve: (a: SqliteAnswer) => void;
  reject: (e: unknown) => void;
}

/**
 * The one worker thread of add-ons' SQLite statements, in order. A statement still running at its
 * host call's deadline is stopped by ending the thread (better-sqlite3 cannot interrupt one) and
 * starting another: its caller gets ADDON_TIMEOUT; statements queued behind it had not started, so
 * they are sent to the new thread as they were (each still bounded by its own deadline), except
 * those of a transaction begun in the old one (its handle, and with it the transaction, are gone),
 * which fail with ADDON_TIMEOUT. A statement whose deadline passes
 * while it waits is answered ADDON_TIMEOUT and skipped by the thread.
 */
export class SqliteWorker {
  private worker: Worker | null = null;
  /** Bumped each time a thread is started: a transaction begun in one cannot go on in the next. */
  private generationNo = 0;
  private running: Int32Array | null = null;
  private nextId = 1;
  /** In the order posted, which is the order the thread runs them. */
  private readonly waiting = new Map<number, Waiting>();
  /** Threads ended because a statement ran past its deadline (tests read it). */
  restarts = 0;

  get generation(): number {
    this.start();
    return this.generationNo;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const shared = new SharedArrayBuffer(4);
    const worker = startWorker(WORKER_ENTRY, { execArgv: [], workerData: { running: shared } satisfies SqliteWorkerData });
    worker.on('message', (a: SqliteAnswer) => {
      const w = this.waiting.get(a.id);
      if (!w) return;
      this.waiting.delete(a.id);
      if (w.timer) clearTimeout(w.timer);
      w.resolve(a);
    });
    const fail = (err: unknown) => {
      if (this.worker !== worker) return;
      this.worker = null;
      for (const w of this.waiting.values()) {
        if (w.timer) clearTimeout(w.timer);
        w.reject(err);
      }
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error('the add-ons SQLite worker stopped')));
    // Idle, it keeps nothing alive; a statement in flight does (its promise is awaited).
    worker.unref();
    this.worker = worker;
    this.running = new Int32Array(shared);
    this.generationNo++;
    return worker;
  }

  /** `generation`: the thread a transaction's statement must run in (null outside a transaction). */
  run(job: Omit<SqliteJob, 'id' | 'deadline'>, generation: number | null = null): Promise<SqliteAnswer> {
    const worker = this.start();
    if (generation !== null && generation !== this.generationNo) return Promise.reject(timedOut());
    const deadline = deadlines.getStore() ?? null;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const w: Waiting = { job: { ...job, id, deadline }, generation, timer: null, resolve, reject };
      if (deadline !== null) w.timer = setTimeout(() => this.late(id), Math.max(0, deadline - Date.now()));
      this.waiting.set(id, w);
      worker.postMessage(w.job);
    });
  }

  /** A statement's deadline passed before its answer came. */
  private late(id: number): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    w.reject(timedOut());
    // Not started: the thread skips it (its deadline has passed). Running: the thread goes.
    if (this.running && Atomics.load(this.running, 0) === id) void this.restart(id);
  }

  private async restart(stuck: number): Promise<void> {
    const old = this.worker;
    if (!old) return;
    // Statements before the stuck one have finished and their answers are on their way: let them in first.
    for (let turns = 0; turns < 100 && [...this.waiting.keys()].some((k) => k < stuck); turns++) await new Promise((r) => setImmediate(r));
    if (this.worker !== old) return;
    this.worker = null;
    this.restarts++;
    const queued = [...this.waiting.values()];
    this.waiting.clear();
    old.removeAllListeners('exit');
    old.removeAllListeners('message');
    void old.terminate();
    const worker = this.start();
    for (const w of queued) {
      if (w.generation !== null) {
        if (w.timer) clearTimeout(w.timer);
        w.reject(timedOut());
        continue;
      }
      this.waiting.set(w.job.id, w);
      worker.postMessage(w.job);
    }
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
  /** The thread the open transaction began in; null outside one. */
  let txGeneration: number | null = null;
  const connection: DatabaseConnection = {
    async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
      const a = await worker.run(
        { file: target.file, readOnly: target.readOnly, sql: q.sql, parameters: [...q.parameters], maxBytes: target.maxBytes },
        txGeneration,
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
