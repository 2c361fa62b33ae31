/**
 * MySQL and MariaDB: `CONVERT_TZ` from UTC (a DATETIME holds UTC, as /data reads it) into the
 * zone, then `DATE_FORMAT`. A named zone needs the server's time zone tables: whether they are
 * loaded is asked once per connection (`probe`), and without them a named zone is refused
 * (timezone-unsupported); UTC and fixed offsets always work. The deadline is MariaDB's `SET
 * STATEMENT max_statement_time = s FOR …` or MySQL's `MAX_EXECUTION_TIME(ms)` hint.
 */
import { sql, type CompiledQuery } from 'kysely';
import type { AnyDb } from '../../../engine/rows/index.js';
import type { WidgetDialect } from './types.js';
import type { Zone } from '../zones.js';

export interface MysqlServer {
  mariadb: boolean;
  /** CONVERT_TZ knows named zones (mysql.time_zone_name is loaded). */
  zoneTables: boolean;
}

const zoneText = (zone: Zone) => (zone.kind === 'utc' ? '+00:00' : zone.kind === 'fixed' ? zone.text : zone.name);

const FORMAT = { hour: '%Y-%m-%d %H:00:00', day: '%Y-%m-%d 00:00:00', week: '%Y-%m-%d 00:00:00', month: '%Y-%m-01 00:00:00' } as const;

export const mysqlWidgets: WidgetDialect = {
  needsSpans: false,
  alive: () => null,
  bucket({ column, unit, zone }) {
    const col = sql.id(column.name);
    const local = column.type === 'date' ? sql`cast(${col} as datetime)` : sql`convert_tz(${col}, '+00:00', ${zoneText(zone)})`;
    const start = unit === 'week' ? sql`date_sub(${local}, interval weekday(${local}) day)` : local;
    return sql`date_format(${start}, ${FORMAT[unit]})`;
  },
  same: (a, b) => sql`${a} <=> ${b}`,
};

/** The server's kind and its zone tables, asked once per connection. */
export async function probe(db: AnyDb): Promise<MysqlServer> {
  const res = await sql<{ v: string; z: unknown }>`select version() as v, convert_tz('2000-01-01 00:00:00', '+00:00', 'Europe/Berlin') as z`.execute(db);
  const row = res.rows[0];
  return { mariadb: /mariadb/i.test(String(row?.v ?? '')), zoneTables: row?.z !== null && row?.z !== undefined };
}

/** ER_STATEMENT_TIMEOUT (MariaDB 1969), ER_QUERY_TIMEOUT (MySQL 3024). */
export const mysqlTimedOut = (err: unknown) => {
  const errno = (err as { errno?: unknown })?.errno;
  return errno === 1969 || errno === 3024;
};

export async function mysqlExecute(db: AnyDb, compiled: CompiledQuery, timeoutMs: number, server: MysqlServer): Promise<Record<string, unknown>[]> {
  const ms = Math.max(1, Math.trunc(timeoutMs));
  // The hint goes right after the first SELECT of the statement (widget statements begin with it).
  const text = server.mariadb
    ? `set statement max_statement_time = ${(ms / 1000).toFixed(3)} for ${compiled.sql}`
    : compiled.sql.replace(/^select /, `select /*+ MAX_EXECUTION_TIME(${ms}) */ `);
  const res = await db.executeQuery({ ...compiled, sql: text });
  return res.rows as Record<string, unknown>[];
}
