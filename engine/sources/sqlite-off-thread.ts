/**
 * SQLite statements off the API's thread (sqlite-worker.ts): better-sqlite3 blocks the thread it
 * runs on, and a SQLite source has no statement timeout of its own, so a long read on the API's
 * thread would hold every request. Shared by the add-ons' `ctx.db` (plugins/add-ons/runtime),
 * widget aggregates (plugins/widget-data) and row search, each with a deadline per statement.
 */
import type { Worker } from 'node:worker_threads';
import { DummyDriver, Kysely, type RawBuilder, sql, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { startWorker } from '../../kernel/workers.js';
import type { SqliteAnswer, SqliteJob, SqliteReady, SqliteWorkerData } from './sqlite-worker.js';

export type { SqliteAnswer, SqliteJob } from './sqlite-worker.js';

/**
 * Starting a thread (loading SQLite's binding, and from the sources tsx) is the platform's work,
 * not a statement's: a statement sent while its thread starts has its deadline moved by the time
 * it waited for the start, up to this much (a thread that does not start within it fails them).
 */
export const THREAD_START_ALLOWANCE_MS = 10_000;

/**
 * `svc_deadline_ok(<epoch ms>)`, known to every handle of the thread: a statement that names it
 * (e.g. `where svc_deadline_ok(?)`) fails by itself once its deadline passed (answered `late`).
 * Worker.terminate() cannot stop a statement inside SQLite's native loop; this can.
 */
export const SQLITE_DEADLINE_FUNCTION = 'svc_deadline_ok';

/** Compiles SQLite statements without a database: they run in the worker thread, nothing on the API's. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const compiler: Kysely<any> = new Kysely({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

/** A statement as the worker takes it (SqliteJob's `sql` and `parameters`). */
export function compileSqlite(statement: RawBuilder<unknown>): { sql: string; parameters: unknown[] } {
  const compiled = statement.compile(compiler);
  return { sql: compiled.sql, parameters: [...compiled.parameters] };
}

/** The file behind a SQLite source's handle: the worker opens it itself. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function sqliteFileOf(db: Kysely<any>): Promise<string> {
  const res = await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db);
  return String(res.rows[0]?.file ?? '');
}

const WORKER_ENTRY = new URL('./sqlite-worker.ts', import.meta.url);

/** The default timeout error; owners pass their own (ADDON_TIMEOUT, WIDGET_QUERY_TIMEOUT). */
export class SqliteDeadlineError extends Error {
  constructor() {
    super('The SQLite statement did not finish before its deadline.');
  }
}

interface Waiting {
  job: SqliteJob;
  /** When it was handed to `run` (epoch ms). */
  sentAt: number;
  graceMs: number;
  /** The worker generation a transaction's statement must run in (its `begin` ran there); null outside one. */
  generation: number | null;
  timer: NodeJS.Timeout | null;
  resolve: (a: SqliteAnswer) => void;
  reject: (e: unknown) => void;
}

/**
 * One worker thread of SQLite statements, run in order. A statement still running at its
 * deadline is stopped by ending the thread (better-sqlite3 cannot interrupt one) and starting
 * another: its caller gets the owner's timeout error (`timedOut`); statements queued behind it had
 * not started, so they are sent to the new thread as they were (each still bounded by its own
 * deadline), except those of a transaction begun in the old one (its handle, and with it the
 * transaction, are gone), which fail with the timeout error. A statement whose deadline passes
 * while it waits is answered the timeout error and skipped by the thread.
 */
export class SqliteWorker {
  private readonly timedOut: () => Error;
  private readonly name: string;
  private worker: Worker | null = null;
  /** Bumped each time a thread is started: a transaction begun in one cannot go on in the next. */
  private generationNo = 0;
  private running: Int32Array | null = null;
  private nextId = 1;
  /** In the order posted, which is the order the thread runs them. */
  private readonly waiting = new Map<number, Waiting>();
  /** Threads ended because a statement ran past its deadline (tests read it). */
  restarts = 0;
  /** Whether the thread running now said it takes statements; until then they are held here, their deadlines not yet counting. */
  private isReady = false;
  private held: Waiting[] = [];
  private readonly entry: URL;

  /**
   * `timedOut`: the error a caller gets for a statement past its deadline; `name` names the thread
   * in its exit error; `entry`, the thread's module (a test starts a slower one).
   */
  constructor(options: { timedOut?: () => Error; name?: string; entry?: URL } = {}) {
    this.timedOut = options.timedOut ?? (() => new SqliteDeadlineError());
    this.name = options.name ?? 'SQLite';
    this.entry = options.entry ?? WORKER_ENTRY;
  }

  get generation(): number {
    this.start();
    return this.generationNo;
  }

  private started: Promise<void> = Promise.resolve();

  /**
   * Starts the thread unless it runs, and settles once it does: for a caller whose statements'
   * deadlines should not pay for starting a thread (a search's 300 ms a table).
   */
  ready(): Promise<void> {
    this.start();
    return this.started;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const shared = new SharedArrayBuffer(4);
    const worker = startWorker(this.entry, { execArgv: [], workerData: { running: shared } satisfies SqliteWorkerData });
    let readied = () => {};
    worker.on('message', (a: SqliteAnswer | SqliteReady) => {
      if ('ready' in a) {
        if (this.worker === worker) this.sendHeld();
        return readied();
      }
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
      this.held = [];
    };
    worker.on('error', fail);
    worker.on('exit', () => fail(new Error(`the ${this.name} worker thread stopped`)));
    // Settles once the thread takes statements, or could not start (its statements then fail as above).
    this.started = new Promise<void>((resolve) => {
      readied = resolve;
      worker.once('error', () => resolve());
      worker.once('exit', () => resolve());
    });
    // Idle, it keeps nothing alive; a statement in flight does (its promise is awaited).
    worker.unref();
    this.worker = worker;
    this.isReady = false;
    this.running = new Int32Array(shared);
    this.generationNo++;
    return worker;
  }

  /**
   * Hands a statement to the thread, or holds it while the thread starts: its timer then runs to
   * the end of the start allowance only (a thread that never starts fails it), and its deadline
   * moves by the time it waited once the thread is ready (sendHeld).
   */
  private send(w: Waiting): void {
    this.waiting.set(w.job.id, w);
    if (this.isReady) {
      this.arm(w);
      this.worker!.postMessage(w.job);
      return;
    }
    this.held.push(w);
    if (w.job.deadline !== null) w.timer = setTimeout(() => this.late(w.job.id), Math.max(0, w.job.deadline - Date.now()) + THREAD_START_ALLOWANCE_MS);
  }

  private sendHeld(): void {
    this.isReady = true;
    const now = Date.now();
    for (const w of this.held.splice(0)) {
      if (!this.waiting.has(w.job.id)) continue;
      if (w.timer) clearTimeout(w.timer);
      if (w.job.deadline !== null) w.job.deadline += Math.min(THREAD_START_ALLOWANCE_MS, now - w.sentAt);
      this.arm(w);
      this.worker!.postMessage(w.job);
    }
  }

  /** The statement's timer: its deadline, and `graceMs` more for one that stops itself (SQLITE_DEADLINE_FUNCTION). */
  private arm(w: Waiting): void {
    if (w.job.deadline !== null) w.timer = setTimeout(() => this.late(w.job.id), Math.max(0, w.job.deadline - Date.now()) + w.graceMs);
  }

  /**
   * Runs one statement. `deadline` (epoch ms, null for none): past it the caller gets the timeout
   * error and the statement is skipped or its thread ended (`graceMs` later for a statement that
   * stops itself, SQLITE_DEADLINE_FUNCTION). `generation`: the thread a transaction's statement
   * must run in (null outside a transaction).
   */
  run(job: Omit<SqliteJob, 'id' | 'deadline'>, options: { deadline: number | null; generation?: number | null; graceMs?: number }): Promise<SqliteAnswer> {
    this.start();
    const generation = options.generation ?? null;
    if (generation !== null && generation !== this.generationNo) return Promise.reject(this.timedOut());
    const deadline = options.deadline;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // A statement that checks its own deadline (SQLITE_DEADLINE_FUNCTION) is given `graceMs` to stop by itself, which keeps its thread.
      const w: Waiting = { job: { ...job, id, deadline }, sentAt: Date.now(), graceMs: options.graceMs ?? 0, generation, timer: null, resolve, reject };
      this.send(w);
    });
  }

  /** A statement's deadline passed before its answer came. */
  private late(id: number): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    w.reject(this.timedOut());
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
    this.start();
    for (const w of queued) {
      if (w.timer) clearTimeout(w.timer);
      if (w.generation !== null) {
        w.reject(this.timedOut());
        continue;
      }
      // Held until the new thread is ready: the wait for it is counted from now.
      w.sentAt = Date.now();
      this.send(w);
    }
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}
