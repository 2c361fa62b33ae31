import { sql } from 'kysely';
import type { Claimer } from './types.js';
import { claimedValues, nextDue } from './types.js';

/**
 * BEGIN IMMEDIATE takes the write lock before reading, so a second process cannot pick the
 * same row between our read and our write (a deferred transaction would fail with
 * SQLITE_BUSY_SNAPSHOT there instead); the UPDATE is still conditional on `queued`.
 */
export const claimSqlite: Claimer = async (db, req) => {
  // Most polls find nothing: a plain read says so without taking the write lock (and without
  // making another process's claim wait for it).
  if (!(await nextDue(db, req).executeTakeFirst())) return null;
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const row = await conn
        .updateTable('jobs')
        .set(claimedValues(req))
        .where('id', '=', nextDue(conn, req))
        .where('state', '=', 'queued')
        .returningAll()
        .executeTakeFirst();
      await sql`commit`.execute(conn);
      return row ?? null;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
};
