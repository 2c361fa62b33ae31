import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { sqliteHelpers } from '../../../kernel/meta/dialects/sqlite.js';
import { errorCode, SourceFailure, type FailureReason } from '../failure.js';
import type { FileTarget, SourceDriver } from '../types.js';

/**
 * better-sqlite3 waits for a lock by sleeping synchronously, which freezes every request of
 * this process, so the wait is kept short whatever the statement timeout (SQLite has none).
 */
const BUSY_TIMEOUT_MS = 2000;

function statOf(file: string): { ok: true; dev: number; ino: number } | { ok: false; reason: FailureReason } {
  try {
    const st = statSync(file);
    return st.isFile() ? { ok: true, dev: st.dev, ino: st.ino } : { ok: false, reason: 'not-a-database' };
  } catch (err) {
    const code = errorCode(err);
    if (code === 'EACCES' || code === 'EPERM') return { ok: false, reason: 'permission-denied' };
    return { ok: false, reason: 'file-not-found' }; // ENOENT, or a path through something that is not a directory
  }
}

export const sqliteSource: SourceDriver<FileTarget> = {
  dialect: 'sqlite',
  open(target, settings) {
    return new Kysely({
      dialect: new SqliteDialect({
        // Opened on first use; fileMustExist: a connection never creates the operator's file.
        database: async () => {
          const pre = statOf(target.file);
          if (!pre.ok) throw new SourceFailure(pre.reason);
          const db = new Database(target.file, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
          // Rows written through the admin respect the foreign keys the schema declares.
          db.pragma('foreign_keys = ON');
          if (settings.readOnly) db.pragma('query_only = ON');
          return db;
        },
      }),
    });
  },
  async serverVersion(db) {
    // Reading the schema makes SQLite look at the file's header: a file that is not a database fails here.
    await sql`select count(*) as n from sqlite_master`.execute(db);
    const res = await sql<{ v: string }>`select sqlite_version() as v`.execute(db);
    return String(res.rows[0]?.v ?? '');
  },
  classify(err) {
    if (err instanceof SourceFailure) return err.reason;
    const code = String(errorCode(err) ?? '');
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return 'not-a-database';
    if (code === 'SQLITE_PERM' || code === 'SQLITE_AUTH' || code === 'EACCES') return 'permission-denied';
    if (code.startsWith('SQLITE_CANTOPEN') || code === 'ENOENT') return 'file-not-found';
    return sqliteHelpers.isUnreachable(err) ? 'file-not-found' : null;
  },
  precheck(target) {
    const pre = statOf(target.file);
    return pre.ok ? null : pre.reason;
  },
  identity(target) {
    const pre = statOf(target.file);
    return pre.ok ? `${pre.dev}:${pre.ino}` : null;
  },
};
