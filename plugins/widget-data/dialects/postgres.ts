/**
 * PostgreSQL: `date_trunc` on the column read in the zone (`AT TIME ZONE`); a timestamp without
 * zone holds UTC (as /data reads it), so it is first marked UTC. Fixed offsets go as an interval
 * (a text offset in AT TIME ZONE is POSIX, west-positive). The deadline is `SET LOCAL
 * statement_timeout` in a read-only transaction of its own.
 */
import { sql } from 'kysely';
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

export async function pgExecute(db: AnyDb, statement: Sql, timeoutMs: number): Promise<Record<string, unknown>[]> {
  // `start transaction read only`: one round trip fewer than a separate `set transaction`.
  return db
    .transaction()
    .setAccessMode('read only')
    .execute(async (trx) => {
      await sql`set local statement_timeout = ${sql.lit(Math.max(1, Math.trunc(timeoutMs)))}`.execute(trx);
      return (await statement.execute(trx)).rows as Record<string, unknown>[];
    });
}
