/**
 * PostgreSQL: `date_trunc` on the column read in the zone (`AT TIME ZONE`); a timestamp without
 * zone holds UTC (as /data reads it), so it is first marked UTC. Fixed offsets go as an interval
 * (a text offset in AT TIME ZONE is POSIX, west-positive). The deadline is `SET LOCAL
 * statement_timeout` in a read-only transaction of its own.
 */
import { sql, type CompiledQuery } from 'kysely';
import type { AnyDb } from '../../../engine/rows/index.js';
import type { Sql, WidgetDialect } from './types.js';
import type { Zone } from '../zones.js';

function zoneSql(zone: Zone): Sql {
  if (zone.kind === 'utc') return sql`'UTC'`;
  if (zone.kind === 'fixed') return sql`cast(${zone.text} as interval)`;
  return sql`${zone.name}`;
}

export const postgresWidgets: WidgetDialect = {
  needsSpans: false,
  alive: () => null,
  bucket({ column, unit, zone }) {
    const col = sql.id(column.name);
    const local =
      column.type === 'date'
        ? sql`cast(${col} as timestamp)`
        : /with time zone/.test(column.nativeType)
          ? sql`(${col} at time zone ${zoneSql(zone)})`
          : sql`((${col} at time zone 'UTC') at time zone ${zoneSql(zone)})`;
    return sql`to_char(date_trunc(${sql.lit(unit)}, ${local}), 'YYYY-MM-DD HH24:MI:SS')`;
  },
  same: (a, b) => sql`${a} is not distinct from ${b}`,
};

/** 57014 query_canceled: statement_timeout fired. */
export const pgTimedOut = (err: unknown) => (err as { code?: unknown })?.code === '57014';

/** How far past its deadline a statement may run on the session's own timeout rather than pay two more round trips. */
export const SESSION_TIMEOUT_SLACK_MS = 500;

/**
 * The statement on the connection's read-only widget pool (WD7), whose sessions were opened
 * read-only with `statement_timeout` = `sessionTimeoutMs`. When that limit ends the statement
 * close enough to its deadline (`leftMs`), it is sent alone: one round trip. A statement that
 * waited its turn has less time left: it runs in a transaction of its own with
 * `SET LOCAL statement_timeout` at what is left, in three round trips (the start and the
 * timeout go together as one simple-protocol query, then the SELECT, then COMMIT).
 */
export async function pgExecute(db: AnyDb, statement: CompiledQuery, leftMs: number, sessionTimeoutMs: number): Promise<Record<string, unknown>[]> {
  if (leftMs >= sessionTimeoutMs - SESSION_TIMEOUT_SLACK_MS) return (await db.executeQuery(statement)).rows as Record<string, unknown>[];
  const ms = Math.max(1, Math.trunc(leftMs));
  return db.connection().execute(async (conn) => {
    await sql.raw(`start transaction read only; set local statement_timeout = ${ms}`).execute(conn);
    try {
      const rows = (await conn.executeQuery(statement)).rows as Record<string, unknown>[];
      await sql.raw('commit').execute(conn);
      return rows;
    } catch (err) {
      // The transaction is over whatever happened (a timeout aborts it); the connection goes back clean.
      await sql
        .raw('rollback')
        .execute(conn)
        .catch(() => undefined);
      throw err;
    }
  });
}
