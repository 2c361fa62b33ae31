/**
 * SQLite: no zones, so the zone's offsets over the rows' span come from Node (zones.ts
 * offsetSpans) as a CASE on the instant, the column is moved to local time with `datetime(col,
 * '<n> seconds')` and truncated with `strftime`. The statement runs in the worker thread of
 * engine/sources/sqlite-off-thread.ts, on the file opened read-only, and the thread is ended at
 * the deadline (SQLite has no statement timeout, decisions WD5).
 */
import { sql } from 'kysely';
import { SQLITE_DEADLINE_FUNCTION } from '../../../engine/sources/sqlite-off-thread.js';
import type { Sql, WidgetDialect } from './types.js';

const FORMAT = { hour: '%Y-%m-%d %H:00:00', day: '%Y-%m-%d 00:00:00', week: '%Y-%m-%d 00:00:00', month: '%Y-%m-01 00:00:00' } as const;

export const sqliteWidgets: WidgetDialect = {
  needsSpans: true,
  // Ending the thread does not stop SQLite's native loop: the statement checks its deadline itself.
  alive: (deadline) => sql`${sql.raw(SQLITE_DEADLINE_FUNCTION)}(${sql.lit(Math.trunc(deadline))}) = 1`,
  bucket({ column, unit, spans }) {
    const col = sql.id(column.name);
    let local: Sql = col;
    if (column.type !== 'date' && spans && !(spans.length === 1 && spans[0]!.offsetMs === 0)) {
      let offset: Sql;
      if (spans.length === 1) offset = sql.lit(spans[0]!.offsetMs / 1000);
      else {
        const instant = sql`cast(strftime('%s', ${col}) as integer)`;
        const arms = spans.slice(1).map((s, i) => sql`when ${instant} < ${sql.lit(Math.floor(s.from / 1000))} then ${sql.lit(spans[i]!.offsetMs / 1000)}`);
        offset = sql`(case ${sql.join(arms, sql` `)} else ${sql.lit(spans[spans.length - 1]!.offsetMs / 1000)} end)`;
      }
      local = sql`datetime(${col}, ${offset} || ' seconds')`;
    }
    return unit === 'week' ? sql`strftime(${FORMAT.week}, ${local}, 'weekday 0', '-6 days')` : sql`strftime(${FORMAT[unit]}, ${local})`;
  },
  same: (a, b) => sql`${a} is ${b}`,
};
