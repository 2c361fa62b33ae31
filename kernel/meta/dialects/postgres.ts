import { sql } from 'kysely';
import type { MetaDialectHelpers } from './types.js';
import { MetaConnectRefused } from '../connect-refusals.js';
import { isNetworkError } from './types.js';

// Arbitrary but fixed: every replica must agree on the advisory lock key.
const MIGRATION_LOCK_KEY = 7_301_994_202;

export const postgresHelpers: MetaDialectHelpers = {
  dialect: 'postgres',
  transactionalDdl: true,
  async withMigrationLock(db, fn) {
    return db.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
      let failed = true;
      try {
        const out = await fn(conn);
        failed = false;
        return out;
      } finally {
        // After a failed migration its own error is the one to report; an unlock that fails
        // too (the connection is gone) has released the lock with the session anyway.
        await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn).catch((err: unknown) => {
          if (!failed) throw err;
        });
      }
    });
  },
  isUnreachable(err) {
    if (err instanceof MetaConnectRefused || isNetworkError(err)) return true;
    const code = (err as { code?: unknown })?.code;
    // 57P01 admin shutdown, 57P03 cannot connect now, 08xxx connection exceptions
    return typeof code === 'string' && (code === '57P01' || code === '57P03' || code.startsWith('08'));
  },
};
