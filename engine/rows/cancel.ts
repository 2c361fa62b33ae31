import { sql } from 'kysely';
import type { AnyDb, RowDialect } from './dialect.js';

/** Thrown when `signal` aborted the work: the caller (a client that went away) no longer waits for it. */
export class StatementCancelled extends Error {
  override name = 'StatementCancelled';
  constructor() {
    super('The statement was cancelled: its caller went away.');
  }
}

/** The server's id of the session `on` runs on, and how another session stops that session's statement. */
const sessions: Partial<Record<RowDialect['name'], { id: (on: AnyDb) => Promise<number>; cancel: (db: AnyDb, id: number) => Promise<unknown> }>> = {
  postgres: {
    id: async (on) => Number((await sql<{ id: number }>`select pg_backend_pid() as id`.execute(on)).rows[0]!.id),
    // Cancels the statement running now, not the session: the pool keeps the connection.
    cancel: (db, id) => sql`select pg_cancel_backend(${id})`.execute(db),
  },
  mysql: {
    id: async (on) => Number((await sql<{ id: number | string }>`select connection_id() as id`.execute(on)).rows[0]!.id),
    // KILL QUERY (MySQL and MariaDB): the statement ends with ER_QUERY_INTERRUPTED, the connection stays.
    cancel: (db, id) => sql`kill query ${sql.lit(id)}`.execute(db),
  },
};

/**
 * Runs `run` so that `signal` stops it in the database, not only in this process: on one
 * connection of `db` (pinned for the duration), whose statement is cancelled from another
 * connection when `signal` aborts (PostgreSQL `pg_cancel_backend`, MySQL/MariaDB `KILL QUERY`).
 * It then rejects with StatementCancelled. SQLite's statements run to their end (the file is
 * read on this machine, a statement cannot be interrupted from another thread's handle), as does
 * everything when `signal` is absent. One round trip more (the session's id): for reads that may
 * run long, such as a free-text search over a big table, not for every page.
 */
export async function cancellable<T>(db: AnyDb, d: RowDialect, signal: AbortSignal | undefined, run: (on: AnyDb) => Promise<T>): Promise<T> {
  const session = sessions[d.name];
  if (!signal || !session) return run(db);
  if (signal.aborted) throw new StatementCancelled();
  return db.connection().execute(async (on) => {
    const id = await session.id(on);
    let cancelling: Promise<unknown> | null = null;
    const onAbort = () => {
      cancelling = session.cancel(db, id).catch(() => undefined);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) throw new StatementCancelled();
      return await run(on);
    } catch (err) {
      if (signal.aborted) throw new StatementCancelled();
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
      // The cancel is awaited before the connection goes back to the pool: a late one must not stop the next statement on it.
      if (cancelling) await cancelling;
    }
  });
}
