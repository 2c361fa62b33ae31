/**
 * The worker thread that runs add-ons' `ctx.db` statements on SQLite sources (sqlite-off-thread.ts):
 * better-sqlite3 is synchronous, so a large read on the API's own thread holds every request of
 * the process. Here it holds only this thread. One handle per file, opened as the source opens it.
 */
import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';

export interface SqliteJob {
  id: number;
  file: string;
  readOnly: boolean;
  sql: string;
  parameters: unknown[];
  /** A read stops and fails once its rows pass this many bytes (an estimate: text and blob lengths, 8 a number). */
  maxBytes: number;
}

export type SqliteAnswer =
  | { id: number; ok: true; rows: Record<string, unknown>[]; changes: number; lastInsertRowid: string | null }
  | { id: number; ok: false; code: string | null; message: string; tooLarge?: true };

/** As the source's own handle (engine/sources/dialects/sqlite.ts). */
const BUSY_TIMEOUT_MS = 2000;
const handles = new Map<string, Database.Database>();

function handle(file: string, readOnly: boolean): Database.Database {
  const key = `${readOnly ? 'r' : 'w'}:${file}`;
  let db = handles.get(key);
  if (!db) {
    db = new Database(file, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    db.pragma('foreign_keys = ON');
    if (readOnly) db.pragma('query_only = ON');
    handles.set(key, db);
  }
  return db;
}

function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array) return v.byteLength;
  return 8;
}

class TooLarge extends Error {}

function run(job: SqliteJob): SqliteAnswer {
  const stmt = handle(job.file, job.readOnly).prepare(job.sql);
  if (!stmt.reader) {
    const r = stmt.run(job.parameters);
    return { id: job.id, ok: true, rows: [], changes: r.changes, lastInsertRowid: String(r.lastInsertRowid) };
  }
  const rows: Record<string, unknown>[] = [];
  let bytes = 0;
  for (const row of stmt.iterate(job.parameters) as Iterable<Record<string, unknown>>) {
    for (const k in row) bytes += k.length + sizeOf(row[k]);
    if (bytes > job.maxBytes) throw new TooLarge();
    rows.push(row);
  }
  return { id: job.id, ok: true, rows, changes: 0, lastInsertRowid: null };
}

parentPort!.on('message', (job: SqliteJob | { close: true }) => {
  if ('close' in job) {
    for (const db of handles.values()) db.close();
    handles.clear();
    return;
  }
  let answer: SqliteAnswer;
  try {
    answer = run(job);
  } catch (err) {
    // An iterating statement left open keeps its handle busy.
    const e = err as { code?: unknown; message?: unknown };
    answer =
      err instanceof TooLarge
        ? { id: job.id, ok: false, code: null, message: 'too large', tooLarge: true }
        : { id: job.id, ok: false, code: typeof e?.code === 'string' ? e.code : null, message: String(e?.message ?? err) };
  }
  parentPort!.postMessage(answer);
});
