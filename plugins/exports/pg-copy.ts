import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type pg from 'pg';
import { POSTGRES_WIRE_TEXT_SETTINGS, postgresCellText } from '../../engine/rows/index.js';
import { withPgClient } from '../../engine/sources/index.js';
import { FORMULA_PRONE } from './formats/cells.js';
import { CsvRecordEnds } from './formats/crlf.js';
import type { FilterBind } from './query.js';
import { orderBy, tableId, whereOf, type ReadSpec } from './read.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

const ARGS = 'svc_export.args';

/**
 * COPY takes no bind parameters, so the filter's values travel as one JSON array in a
 * transaction-local setting (set with a parameter) and the query reads them back from there:
 * a compared value through json_populate_record on the table's own row type, so it takes the
 * column's type exactly as a parameter would; a LIKE pattern as text. Each read is a scalar
 * subquery, evaluated once per statement, not once per row. Nothing the caller sent is ever
 * part of the SQL text.
 */
function settingsBinder(spec: ReadSpec): { bind: FilterBind; args: unknown[] } {
  const args: unknown[] = [];
  const bind: FilterBind = (column, value, form) => {
    const arg = sql`(current_setting(${sql.lit(ARGS)})::json -> ${sql.raw(String(args.length))})`;
    if (form === 'text') {
      args.push(value);
      return sql`(select ${arg} #>> '{}')`;
    }
    args.push({ [column.name]: value });
    return sql`(select (json_populate_record(null::${tableId(spec.table)}, ${arg})).${sql.id(column.name)})`;
  };
  return { bind, args };
}

/**
 * formats/cells.ts `formulaSafe` in SQL, so the COPY path stays without JavaScript per row: a
 * leading apostrophe on text starting with = + - @ tab or CR that is not a number (EX3).
 */
function formulaSafeSql(cell: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`case when left(${cell}, 1) in ('=', '+', '-', '@', chr(9), chr(13)) and ${cell} !~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$' then '''' || ${cell} else ${cell} end`;
}

/** Above this many rows by the planner's estimate, progress counts against the estimate: an exact count reads the whole table once more. */
const EXACT_COUNT_UP_TO = 100_000;

/** The rows the export will write, for progress: exact on small reads, the planner's estimate on large ones. */
async function expectedRows(client: pg.PoolClient, selectSql: string, countSql: string): Promise<number> {
  const plan = await client.query<{ 'QUERY PLAN': Array<{ Plan?: { 'Plan Rows'?: number } }> }>(`explain (format json) ${selectSql}`);
  const estimate = plan.rows[0]?.['QUERY PLAN']?.[0]?.Plan?.['Plan Rows'];
  if (typeof estimate === 'number' && estimate > EXACT_COUNT_UP_TO) return Math.round(estimate);
  return Number((await client.query<{ n: string }>(countSql)).rows[0]?.n ?? 0);
}

export interface CopyProgress {
  (done: number, total: number): void;
}

/**
 * A CSV export on PostgreSQL: `COPY (SELECT …) TO STDOUT` in one REPEATABLE READ READ ONLY
 * transaction, the server writing every value as its file text (postgresCellText), so no row
 * passes through JavaScript; the bytes stream into `out` as they come (constant memory).
 * Writes the header, then the records with CRLF ends (EX2). Resolves with the record count.
 */
export async function copyCsv(db: Db, spec: ReadSpec, out: Writable, signal: AbortSignal, progress: CopyProgress, safe = false): Promise<number> {
  const { bind, args } = settingsBinder(spec);
  const where = whereOf(spec.whereWith(bind));
  const cells = sql.join(spec.columns.map((c) => (safe && FORMULA_PRONE.has(c.type) ? formulaSafeSql(postgresCellText(c)) : postgresCellText(c))));
  // Qualified: a bare name in ORDER BY would mean the output column, the value's text.
  const order = spec.sort.length ? sql`order by ${orderBy(spec.table, spec.sort)}` : sql``;
  const select = sql`select ${cells} from ${tableId(spec.table)} ${where} ${order}`.compile(db);
  const count = sql`select count(*) as n from ${tableId(spec.table)} ${where}`.compile(db);
  if (select.parameters.length || count.parameters.length) throw new Error('A COPY query cannot carry parameters.');

  return withPgClient(db, async (client) => {
    await client.query('begin isolation level repeatable read read only');
    for (const setting of POSTGRES_WIRE_TEXT_SETTINGS) await client.query(setting);
    await client.query('select set_config($1, $2, true)', [ARGS, JSON.stringify(args)]);
    const total = await expectedRows(client, select.sql, count.sql);
    progress(0, total);
    out.write(stringify([spec.columns.map((c) => c.name)], { record_delimiter: 'windows' }));
    const ends = new CsvRecordEnds((n) => progress(n, Math.max(n, total)));
    const { to: copyTo } = await import('pg-copy-streams');
    await pipeline(client.query(copyTo(`copy (${select.sql}) to stdout with (format csv)`)), ends, out, { signal });
    await client.query('commit');
    return ends.records;
  });
}
