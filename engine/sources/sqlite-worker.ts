/**
 * The worker thread that runs statements on SQLite sources off the API's thread
 * (sqlite-off-thread.ts): add-ons' `ctx.db`, widget aggregates, row search. better-sqlite3 is
 * synchronous, so a large read on the API's own thread holds every request of the process. Here
 * it holds only this thread. One handle per file and mode, opened as the source opens it, and
 * opened again when the path names another file than the one it has open (as the source driver
 * checks, engine/sources/dialects/sqlite.ts): an operator who replaces the file gets the writes
 * in the new one, not in the deleted one.
 */
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { rowBytes } from './read-bytes.js';

export interface SqliteJob {
  id: number;
  file: string;
  /** `query_only` on a read-write handle: the add-ons' read-only sources. */
  readOnly: boolean;
  /** Opens the file itself read-only (SQLITE_OPEN_READONLY): readers that never write (widgets, search). */
  openReadOnly?: boolean;
  sql: string;
  parameters: unknown[];
  /** A read stops and fails once its rows pass this many bytes (read-bytes.ts). */
  maxBytes: number;
  /** Epoch ms: a statement picked up after this is not run (its caller was already answered). */
  deadline: number | null;
}

export type SqliteAnswer =
  | { id: number; ok: true; rows: Record<string, unknown>[]; changes: number; lastInsertRowid: string | null }
  | { id: number; ok: false; code: string | null; message: string; tooLarge?: true; late?: true };

/** The thread's first message: it takes statements from now on. */
export interface SqliteReady {
  ready: true;
}

/** What the parent reads without a message: [0] the id of the statement running now, 0 between statements. */
export interface SqliteWorkerData {
  running: SharedArrayBuffer;
}

/** As the source's own handle (engine/sources/dialects/sqlite.ts). */
const BUSY_TIMEOUT_MS = 2000;
const handles = new Map<string, { db: Database.Database; identity: string }>();
const running = new Int32Array((workerData as SqliteWorkerData).running);

/** dev:ino of the file the path names now. */
function identityOf(file: string): string {
  const st = statSync(file);
  return `${st.dev}:${st.ino}`;
}

function handle(file: string, readOnly: boolean, openReadOnly: boolean): Database.Database {
  const key = `${openReadOnly ? 'o' : readOnly ? 'r' : 'w'}:${file}`;
  // Throws ENOENT for a file removed: the statement fails rather than write to what is gone.
  const identity = identityOf(file);
  const held = handles.get(key);
  if (held?.identity === identity) return held.db;
  if (held) {
    handles.delete(key);
    held.db.close();
  }
  const db = new Database(file, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS, readonly: openReadOnly });
  if (!openReadOnly) db.pragma('foreign_keys = ON');
  // A statement that names it stops by itself at its deadline (epoch ms): ending the thread cannot
  // interrupt SQLite's native loop, which would run on, holding a core, until it returns to JS.
  let calls = 0;
  db.function(DEADLINE_FUNCTION, { deterministic: false }, (deadline) => {
    if ((++calls & 1023) === 0 && Date.now() > Number(deadline)) throw new Error(DEADLINE_PASSED);
    return 1;
  });
  if (readOnly && !openReadOnly) db.pragma('query_only = ON');
  handles.set(key, { db, identity });
  return db;
}

class TooLarge extends Error {}

/** `svc_deadline_ok(<epoch ms>)`: 1 until the deadline, then the statement fails (checked every 1,024 rows). */
export const DEADLINE_FUNCTION = 'svc_deadline_ok';
const DEADLINE_PASSED = 'svc: deadline passed';

function run(job: SqliteJob): SqliteAnswer {
  const stmt = handle(job.file, job.readOnly, job.openReadOnly ?? false).prepare(job.sql);
  if (!stmt.reader) {
    const r = stmt.run(job.parameters);
    return { id: job.id, ok: true, rows: [], changes: r.changes, lastInsertRowid: String(r.lastInsertRowid) };
  }
  const rows: Record<string, unknown>[] = [];
  let bytes = 0;
  for (const row of stmt.iterate(job.parameters) as Iterable<Record<string, unknown>>) {
    bytes += rowBytes(row);
    if (bytes > job.maxBytes) throw new TooLarge();
    rows.push(row);
  }
  return { id: job.id, ok: true, rows, changes: 0, lastInsertRowid: null };
}

parentPort!.on('message', (job: SqliteJob) => {
  Atomics.store(running, 0, job.id);
  let answer: SqliteAnswer;
  // Marked running first: a parent that sees another id at the deadline knows this one has not started, and that it will not.
  if (job.deadline !== null && Date.now() >= job.deadline) answer = { id: job.id, ok: false, code: null, message: 'late', late: true };
  else
    try {
      answer = run(job);
    } catch (err) {
      // An iterating statement left open keeps its handle busy.
      const e = err as { code?: unknown; message?: unknown };
      answer = String(e?.message ?? '').includes(DEADLINE_PASSED)
        ? { id: job.id, ok: false, code: null, message: 'late', late: true }
        : err instanceof TooLarge
          ? { id: job.id, ok: false, code: null, message: 'too large', tooLarge: true }
          : { id: job.id, ok: false, code: typeof e?.code === 'string' ? e.code : null, message: String(e?.message ?? err) };
    }
  parentPort!.postMessage(answer);
  Atomics.store(running, 0, 0);
});
// Statements may come now: their deadlines are counted from here (sqlite-off-thread.ts), not from the thread's start.
parentPort!.postMessage({ ready: true } satisfies SqliteReady);
