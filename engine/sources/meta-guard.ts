import { randomBytes, randomInt } from 'node:crypto';
import { sql } from 'kysely';
import type { MetaDb } from '../../kernel/meta/types.js';
import { driverFor } from './dialects/index.js';
import { SourceFailure, toFailure } from './failure.js';
import type { SourceDb, SourceDialect } from './types.js';

/** The kernel_state row holding this installation's marker (a random value, written once). */
export const META_MARKER_KEY = 'meta_store_marker';

export interface MetaStoreRef {
  db: MetaDb;
  dialect: SourceDialect;
}

/**
 * Tells whether a source reaches the meta store's own database, whatever the URL says (host
 * aliases, default or explicit port, letter case, a proxy in front). Names prove nothing, so
 * it asks the servers:
 *
 * - the live database: the meta store holds a lock with a random key while the source looks
 *   for it. PostgreSQL advisory locks belong to one database and every role sees them in
 *   pg_locks; MySQL/MariaDB user locks belong to the server (IS_USED_LOCK needs no privilege),
 *   and the database name is then compared as the server compares names;
 * - a copy (a replica, a restored backup, a dump): the meta store's random marker row, read
 *   from `kernel_state` in the source when the source's user may read it.
 *
 * Either match refuses. SQLite meta stores are files: the data-directory rule covers them.
 */
export class MetaStoreGuard {
  private marker: Promise<{ value: string; schema: string | null }> | null = null;

  constructor(private readonly meta: MetaStoreRef) {}

  /**
   * Throws SourceFailure('meta-store') when `source` reaches the meta store. A failing query on
   * the source is a SourceFailure too (classified as connecting is); an error of the meta store
   * itself is thrown as it is (the caller's 503 META_UNAVAILABLE).
   */
  async refuse(source: SourceDb, dialect: SourceDialect): Promise<void> {
    if (this.meta.dialect === 'sqlite' || dialect !== this.meta.dialect) return;
    if ((await this.sameMarker(source)) || (await this.sameDatabase(source, dialect))) throw new SourceFailure('meta-store');
  }

  private async sameMarker(source: SourceDb): Promise<boolean> {
    const mine = await this.ownMarker();
    try {
      // Asked first on PostgreSQL, so a missing table does not put an error in the operator's server log.
      if (mine.schema) {
        const found = await sql<{ t: string | null }>`select to_regclass(${`${quoteIdent(mine.schema)}.kernel_state`})::text as t`.execute(source);
        if (!found.rows[0]?.t) return false;
      }
      const table = mine.schema ? source.withSchema(mine.schema) : source;
      const row = await table.selectFrom('kernel_state').select('value').where('key', '=', META_MARKER_KEY).executeTakeFirst();
      return row !== undefined && String(row.value) === mine.value;
    } catch {
      // No such table, or not readable by this user: nothing is learnt here; the lock decides.
      return false;
    }
  }

  private ownMarker(): Promise<{ value: string; schema: string | null }> {
    this.marker ??= (async () => {
      const db = this.meta.db;
      const read = () => db.selectFrom('kernel_state').select('value').where('key', '=', META_MARKER_KEY).executeTakeFirst();
      let row = await read();
      if (!row) {
        // Another replica may write it at the same moment: the first write wins, both read it back.
        await db
          .insertInto('kernel_state')
          .values({ key: META_MARKER_KEY, value: randomBytes(24).toString('base64url'), updated_at: Date.now() })
          .execute()
          .catch(() => undefined);
        row = await read();
      }
      if (!row) throw new Error('the meta store marker could not be written');
      const schema =
        this.meta.dialect === 'postgres' ? String((await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s ?? 'public') : null;
      return { value: row.value, schema };
    })();
    this.marker.catch(() => (this.marker = null));
    return this.marker;
  }

  private async sameDatabase(source: SourceDb, dialect: SourceDialect): Promise<boolean> {
    if (dialect === 'postgres') {
      // A transaction lock: it goes with the transaction, whatever happens to the check.
      return this.meta.db.transaction().execute(async (meta) => {
        // Two int4 keys (pg_locks shows them as classid/objid with objsubid 2); positive, so they read back as oids.
        const [k1, k2] = [randomInt(1, 2 ** 31 - 1), randomInt(1, 2 ** 31 - 1)];
        const got = await sql<{ got: boolean }>`select pg_try_advisory_xact_lock(${k1}::int4, ${k2}::int4) as got`.execute(meta);
        if (got.rows[0]?.got !== true) throw new Error('the meta store did not grant a fresh advisory lock');
        const seen = await onSource(dialect, () =>
          sql<{ held: boolean }>`select exists (
              select 1 from pg_locks
               where locktype = 'advisory' and objsubid = 2
                 and classid = ${String(k1)}::oid and objid = ${String(k2)}::oid
                 and database = (select oid from pg_database where datname = current_database())
            ) as held`.execute(source),
        );
        return seen.rows[0]?.held === true;
      });
    }
    return this.meta.db.connection().execute(async (meta) => {
      const name = `svc-admin-${randomBytes(16).toString('hex')}`;
      const got = await sql<{ got: number | string; db: string | null }>`select get_lock(${name}, 0) as got, database() as db`.execute(meta);
      if (Number(got.rows[0]?.got) !== 1) throw new Error('the meta store did not grant a fresh user lock');
      try {
        const seen = await onSource(dialect, () =>
          sql<{
            held: number | string;
            db: string | null;
            lctn: number | string;
          }>`select is_used_lock(${name}) is not null as held, database() as db, @@lower_case_table_names as lctn`.execute(source),
        );
        const row = seen.rows[0];
        if (!row || Number(row.held) !== 1) return false;
        return sameMysqlDatabase(String(got.rows[0]?.db ?? ''), String(row.db ?? ''), Number(row.lctn));
      } finally {
        await sql`select release_lock(${name})`.execute(meta);
      }
    });
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A query on the source: its errors are the source's, classified like a failed connect. */
async function onSource<T>(dialect: SourceDialect, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw toFailure(driverFor(dialect).classify(err) ?? 'unknown', err, []);
  }
}

/**
 * Whether two database names on one MySQL/MariaDB server are one database: exactly when the
 * server keeps names as typed (lower_case_table_names = 0), in any letter case otherwise.
 */
export function sameMysqlDatabase(a: string, b: string, lowerCaseTableNames: number): boolean {
  return lowerCaseTableNames === 0 ? a === b : a.toLowerCase() === b.toLowerCase();
}
