import { sql } from 'kysely';
import type { MetaDialectHelpers } from './types.js';
import { isNetworkError } from './types.js';

export const mysqlHelpers: MetaDialectHelpers = {
  dialect: 'mysql',
  // MySQL commits DDL implicitly: a crash inside a migration can leave it half applied.
  transactionalDdl: false,
  async withMigrationLock(db, fn) {
    return db.connection().execute(async (conn) => {
      const res = await sql<{ got: number | null }>`select GET_LOCK('svc_migrations', 120) as got`.execute(conn);
      if (Number(res.rows[0]?.got) !== 1) throw new Error('could not take the migration lock within 120 s');
      try {
        return await fn(conn);
      } finally {
        await sql`select RELEASE_LOCK('svc_migrations')`.execute(conn);
      }
    });
  },
  isUnreachable(err) {
    return isNetworkError(err) || (err as { fatal?: unknown })?.fatal === true;
  },
};
