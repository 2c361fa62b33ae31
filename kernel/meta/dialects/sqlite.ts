import { sql, type Kysely } from 'kysely';
import type { MetaDialectHelpers } from './types.js';

/** As long as the other dialects wait for their migration lock. */
const LOCK_WAIT_MS = 120_000;

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * BEGIN IMMEDIATE, waiting for another writer without blocking the event loop. better-sqlite3
 * honours busy_timeout by sleeping synchronously, which would also freeze a second handle in
 * this same process that holds the lock and needs the loop to finish (it then fails with
 * "database is locked" after the timeout). So: no busy wait while asking, and yield between tries.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function beginImmediate(conn: Kysely<any>): Promise<void> {
  const before = await sql<{ timeout: number }>`pragma busy_timeout`.execute(conn);
  const previous = Math.max(0, Math.trunc(Number(before.rows[0]?.timeout ?? 5000)));
  await sql`pragma busy_timeout = 0`.execute(conn);
  try {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let delay = 5; ; delay = Math.min(delay * 2, 200)) {
      try {
        await sql`begin immediate`.execute(conn);
        return;
      } catch (err) {
        if (!isBusy(err)) throw err;
        if (Date.now() >= deadline) throw new Error(`could not take the migration lock within ${LOCK_WAIT_MS / 1000} s`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  } finally {
    await sql.raw(`pragma busy_timeout = ${previous}`).execute(conn);
  }
}

export const sqliteHelpers: MetaDialectHelpers = {
  dialect: 'sqlite',
  transactionalDdl: true,
  async withMigrationLock(db, fn) {
    // BEGIN IMMEDIATE takes the write lock across processes; every migration runs inside it,
    // so a crash rolls the whole run back.
    return db.connection().execute(async (conn) => {
      await beginImmediate(conn);
      try {
        const out = await fn(conn);
        await sql`commit`.execute(conn);
        return out;
      } catch (err) {
        // Some errors (SQLITE_FULL, SQLITE_IOERR…) already ended the transaction; the
        // migration's own error is the one worth reporting, not "no transaction is active".
        await sql`rollback`.execute(conn).catch(() => undefined);
        throw err;
      }
    });
  },
  isUnreachable(err) {
    // better-sqlite3 reports extended codes (SQLITE_IOERR_SHORT_READ…), hence the prefixes.
    const code = String((err as { code?: unknown })?.code ?? '');
    return (
      code.startsWith('SQLITE_CANTOPEN') ||
      code.startsWith('SQLITE_IOERR') ||
      code === 'SQLITE_READONLY_DBMOVED' ||
      (err as Error)?.message === 'The database connection is not open'
    );
  },
};
