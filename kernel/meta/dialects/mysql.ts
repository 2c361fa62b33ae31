import { sql } from 'kysely';
import type { MetaDialectHelpers } from './types.js';
import { MetaConnectRefused } from '../connect-refusals.js';
import { isNetworkError } from './types.js';

// GET_LOCK names are server-wide, unlike PostgreSQL advisory locks (per database): the name
// carries the database so instances sharing one server do not wait on each other's migrations.
// Hashed, because a lock name may not exceed 64 characters.
const LOCK_NAME = sql`concat('svc_migrations:', sha1(coalesce(database(), '')))`;

export const mysqlHelpers: MetaDialectHelpers = {
  dialect: 'mysql',
  // MySQL commits DDL implicitly: a crash inside a migration can leave it half applied.
  transactionalDdl: false,
  async withMigrationLock(db, fn) {
    return db.connection().execute(async (conn) => {
      const res = await sql<{ got: number | null }>`select GET_LOCK(${LOCK_NAME}, 120) as got`.execute(conn);
      if (Number(res.rows[0]?.got) !== 1) throw new Error('could not take the migration lock within 120 s');
      let failed = true;
      try {
        const out = await fn(conn);
        failed = false;
        return out;
      } finally {
        // After a failed migration its own error is the one to report; an unlock that fails
        // too (the connection is gone) has released the lock with the session anyway.
        await sql`select RELEASE_LOCK(${LOCK_NAME})`.execute(conn).catch((err: unknown) => {
          if (!failed) throw err;
        });
      }
    });
  },
  isUnreachable(err) {
    return err instanceof MetaConnectRefused || isNetworkError(err) || (err as { fatal?: unknown })?.fatal === true;
  },
};
