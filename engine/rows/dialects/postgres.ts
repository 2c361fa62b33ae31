import { CompiledQuery, sql } from 'kysely';
import type { Column } from '../../schema/model.js';
import { binaryWire, commonWire, isoDatetime } from '../codec.js';
import type { RowDialect, WriteFailure } from '../dialect.js';
import type { PortableValue } from '../types.js';
import { hasPgClient, queryPgRows } from '../../sources/pg-client.js';

/** timestamptz: its wire value is UTC with `Z`. */
export const withZone = (c: Column) => /with time zone/.test(c.nativeType);

/**
 * Dates and timestamps are formatted by the server (to_char), independent of the session's
 * DateStyle and of the process time zone the driver would parse them in; numeric and int8
 * travel as text so nothing passes through a double; `other` types travel as their text form,
 * which PostgreSQL also accepts back as input.
 */
function select(c: Column) {
  const col = sql.id(c.name);
  switch (c.type) {
    case 'bigint':
    case 'decimal':
    case 'other':
      return sql`cast(${col} as text)`;
    case 'date':
      return sql`case when isfinite(${col}) then to_char(${col}, 'YYYY-MM-DD') else cast(${col} as text) end`;
    case 'datetime':
      return withZone(c)
        ? sql`case when isfinite(${col}) then to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') else cast(${col} as text) end`
        : sql`case when isfinite(${col}) then to_char(${col}, 'YYYY-MM-DD"T"HH24:MI:SS.US') else cast(${col} as text) end`;
    default:
      return col;
  }
}

/** character(n) pads with spaces; the padding is not part of the value (MySQL drops it too). */
const PADDED = /^(character|char|bpchar)(\(\d+\))?$/;
// Asked for every text cell of every list: worked out once per column.
const paddedColumns = new WeakMap<Column, boolean>();
export function padded(c: Column): boolean {
  let yes = paddedColumns.get(c);
  if (yes === undefined) paddedColumns.set(c, (yes = PADDED.test(c.nativeType)));
  return yes;
}

function toWire(c: Column, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  switch (c.type) {
    case 'string':
      return typeof raw === 'string' && padded(c) ? raw.replace(/ +$/, '') : raw;
    case 'bigint':
    case 'decimal':
      return String(raw);
    case 'datetime':
      return typeof raw === 'string' ? isoDatetime(raw) : commonWire(c, raw);
    case 'binary':
      return Buffer.isBuffer(raw) ? binaryWire(raw) : raw;
    default:
      return commonWire(c, raw);
  }
}

function bind(c: Column, v: PortableValue): unknown {
  if (v === null) return null;
  if (c.type === 'datetime' && typeof v === 'string') return withZone(c) ? `${v.replace(' ', 'T')}Z` : v.replace(' ', 'T');
  return v;
}

// SQLSTATE classes (https://www.postgresql.org/docs/current/errcodes-appendix.html).
function writeFailure(err: unknown): WriteFailure | null {
  const e = err as { code?: unknown; constraint?: unknown; column?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const constraint = typeof e.constraint === 'string' ? e.constraint : typeof e.column === 'string' ? e.column : null;
  if (code === '23505') return { reason: 'unique', constraint };
  if (code === '23503') return { reason: 'foreign-key', constraint };
  if (code === '23502') return { reason: 'not-null', constraint };
  if (code === '23514') return { reason: 'check', constraint };
  if (code.startsWith('22') || code === '428C9' || code === '42804') return { reason: 'invalid', constraint };
  return null;
}

export const postgresRows: RowDialect = {
  name: 'postgres',
  table: (t) => (t.schema ? sql.id(t.schema, t.name) : sql.id(t.name)),
  select,
  toWire,
  bind,
  order: (c) => sql.id(c.name),
  nullsLargest: true,
  ilike: (c, pattern) => sql`cast(${sql.id(c.name)} as text) ilike ${pattern} escape '!'`,
  returning: true,
  forUpdate: true,
  // Identity columns GENERATED ALWAYS refuse an explicit value without it (undo re-inserts the old key).
  insertModifier: (_t, columns) => (columns.some((c) => c.autoIncrement) ? sql`overriding system value` : null),
  defaultValues: (t) => sql`insert into ${postgresRows.table(t)} default values`,
  readRows: (db, q) => (hasPgClient(db) ? queryPgRows(db, q.sql, q.parameters, q.repeated) : null),
  async explainRows(db, q) {
    const res = await db.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`explain (format json) ${q.sql}`, [...q.parameters]));
    const plan = res.rows[0]?.['QUERY PLAN'];
    const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{ Plan?: { 'Plan Rows'?: number } }>;
    const n = parsed?.[0]?.Plan?.['Plan Rows'];
    return typeof n === 'number' ? Math.round(n) : null;
  },
  writeFailure,
  missingObject: (err) => ['42703', '42P01'].includes(String((err as { code?: unknown })?.code)),
};
