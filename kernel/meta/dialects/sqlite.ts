import { sql } from 'kysely';
import type { MetaDialectHelpers } from './types.js';

export const sqliteHelpers: MetaDialectHelpers = {
  dialect: 'sqlite',
  transactionalDdl: true,
  async withMigrationLock(db, fn) {
    // BEGIN IMMEDIATE takes the write lock across processes; every migration runs inside it,
    // so a crash rolls the whole run back.
    return db.connection().execute(async (conn) => {
      await sql`begin immediate`.execute(conn);
      try {
        const out = await fn(conn);
        await sql`commit`.execute(conn);
        return out;
      } catch (err) {
        await sql`rollback`.execute(conn);
        throw err;
      }
    });
  },
  isUnreachable(err) {
    const code = (err as { code?: unknown })?.code;
    return (
      code === 'SQLITE_CANTOPEN' ||
      code === 'SQLITE_IOERR' ||
      code === 'SQLITE_READONLY_DBMOVED' ||
      (err as Error)?.message === 'The database connection is not open'
    );
  },
};
