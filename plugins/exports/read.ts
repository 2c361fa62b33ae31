import { sql, type Kysely, type RawBuilder } from 'kysely';
import { rawValues, rowDialect, selectList } from '../../engine/rows/index.js';
import type { Column } from '../../engine/schema/model.js';
import type { SourceDialect } from '../connections/provides.js';
import type { FilterBind, SortKey } from './query.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export interface ReadSpec {
  dialect: SourceDialect;
  table: { schema: string | null; name: string };
  /** The columns written, in file order. */
  columns: Column[];
  /** Every column of the table by name (the sort and key columns a read needs besides `columns`). */
  byName: Map<string, Column>;
  where: RawBuilder<boolean>[];
  /** `where` with its values bound by `bind` instead of as parameters. */
  whereWith(bind: FilterBind): RawBuilder<boolean>[];
  sort: SortKey[];
  /** The columns `search` looks in, as checked when the export was asked for (stored with it). */
  searched: string[];
  /** The primary key; null pages by offset (views, tables without one). */
  key: string[] | null;
  chunkRows: number;
}

export const tableId = (t: ReadSpec['table']) => (t.schema ? sql.id(t.schema, t.name) : sql.id(t.name));
export const whereOf = (parts: RawBuilder<boolean>[]) => (parts.length ? sql`where ${sql.join(parts, sql` and `)}` : sql``);

export async function countRows(db: Db, spec: ReadSpec): Promise<number> {
  const res = await sql<{ n: unknown }>`select count(*) as n from ${tableId(spec.table)} ${whereOf(spec.where)}`.execute(db);
  return Number(res.rows[0]?.n ?? 0);
}

/** The sort the file follows: the asked sort, then the key (or every column) so the order is total. */
function orderKeys(spec: ReadSpec): SortKey[] {
  const keys = [...spec.sort];
  const tail = spec.key ?? spec.columns.map((c) => c.name);
  for (const column of tail) if (!keys.some((k) => k.column === column)) keys.push({ column, desc: false });
  return keys;
}

/** A column qualified by its table: a bare name in ORDER BY would mean an output column (c0, c1, … are aliases). */
export const qualified = (t: ReadSpec['table'], column: string) => (t.schema ? sql.id(t.schema, t.name, column) : sql.id(t.name, column));

export const orderBy = (t: ReadSpec['table'], keys: SortKey[]) => sql.join(keys.map((k) => sql`${qualified(t, k.column)} ${sql.raw(k.desc ? 'desc' : 'asc')}`));

/**
 * Rows after `last` in MySQL/SQLite order, where NULL sorts first ascending and last
 * descending: (k1 after v1) or (k1 same as v1 and (k2 after v2 or …)).
 */
function after(keys: SortKey[], last: Map<string, unknown>): RawBuilder<boolean> {
  let cond: RawBuilder<boolean> | null = null;
  for (let i = keys.length - 1; i >= 0; i--) {
    const { column, desc } = keys[i]!;
    const col = sql`${sql.id(column)}`;
    const v = last.get(column);
    const isNull = v === null || v === undefined;
    const beyond = isNull
      ? desc
        ? sql<boolean>`1 = 0`
        : sql<boolean>`${col} is not null`
      : desc
        ? sql<boolean>`(${col} < ${v} or ${col} is null)`
        : sql<boolean>`${col} > ${v}`;
    const same = isNull ? sql<boolean>`${col} is null` : sql<boolean>`${col} = ${v}`;
    cond = cond ? sql<boolean>`(${beyond} or (${same} and ${cond}))` : beyond;
  }
  return cond ?? sql<boolean>`1 = 1`;
}

/**
 * Driver rows selected by `selectList` → arrays of wire values: the kernel's row codec, the one
 * GET /data answers with (date-times as the server's text, so microseconds survive; SQLite
 * bigints as text, so 64-bit values are exact).
 */
function toArrays(spec: ReadSpec) {
  const d = rowDialect(spec.dialect);
  const columns = spec.columns;
  const n = columns.length;
  return (rows: Record<string, unknown>[]) =>
    rows.map((r) => {
      const raw = rawValues(r, n);
      for (let i = 0; i < n; i++) raw[i] = d.toWire(columns[i]!, raw[i]);
      return raw;
    });
}

/**
 * PostgreSQL: one server-side cursor in a REPEATABLE READ READ ONLY transaction. The file is one
 * snapshot, the server keeps the position, and every FETCH is a short statement (the pool's
 * statement_timeout applies to each, not to the whole export).
 */
async function* pgChunks(db: Db, spec: ReadSpec): AsyncGenerator<unknown[][]> {
  const convert = toArrays(spec);
  const cols = selectList(rowDialect(spec.dialect), spec.columns);
  const order = spec.sort.length ? sql`order by ${orderBy(spec.table, spec.sort)}` : sql``;
  const trx = await db.startTransaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute();
  let done = false;
  try {
    await sql`declare svc_export no scroll cursor for select ${cols} from ${tableId(spec.table)} ${whereOf(spec.where)} ${order}`.execute(trx);
    for (;;) {
      const res = await sql<Record<string, unknown>>`fetch forward ${sql.raw(String(spec.chunkRows))} from svc_export`.execute(trx);
      if (res.rows.length === 0) break;
      yield convert(res.rows);
      if (res.rows.length < spec.chunkRows) break;
    }
    done = true;
  } finally {
    await (done ? trx.commit() : trx.rollback()).execute().catch(() => undefined);
  }
}

/**
 * MySQL/MariaDB and SQLite: keyset pages over (sort…, primary key), each a short statement.
 * MySQL reads them in one consistent-snapshot transaction on one connection; SQLite pages
 * outside one, because a SQLite connection is shared and a long read would hold it. Without a
 * key, pages go by offset over an order on every column.
 */
async function* keysetChunks(db: Db, spec: ReadSpec): AsyncGenerator<unknown[][]> {
  const convert = toArrays(spec);
  const keys = orderKeys(spec);
  const selected = [...spec.columns];
  for (const k of keys) if (!selected.some((c) => c.name === k.column)) selected.push(spec.byName.get(k.column)!);
  // Where each key's value is in a row: the cursor carries the selected form (what kysely would
  // bind back: date-times and bigints as text, which each dialect compares with the column).
  const keyAt = keys.map((k) => selected.findIndex((c) => c.name === k.column));
  const cols = selectList(rowDialect(spec.dialect), selected);
  const trx = spec.dialect === 'mysql' ? await db.startTransaction().setIsolationLevel('repeatable read').execute() : null;
  const q = trx ?? db;
  let done = false;
  try {
    let last: Map<string, unknown> | null = null;
    let offset = 0;
    for (;;) {
      const where = [...spec.where];
      if (spec.key && last) where.push(after(keys, last));
      const page = spec.key ? sql`` : sql`offset ${offset}`;
      const res = await sql<
        Record<string, unknown>
      >`select ${cols} from ${tableId(spec.table)} ${whereOf(where)} order by ${orderBy(spec.table, keys)} limit ${spec.chunkRows} ${page}`.execute(q);
      if (res.rows.length === 0) break;
      yield convert(res.rows);
      if (res.rows.length < spec.chunkRows) break;
      const lastRow = rawValues(res.rows[res.rows.length - 1]!, selected.length);
      last = new Map(keys.map((k, i) => [k.column, lastRow[keyAt[i]!]]));
      offset += res.rows.length;
    }
    done = true;
  } finally {
    if (trx) await (done ? trx.commit() : trx.rollback()).execute().catch(() => undefined);
  }
}

/** The rows of the export, a chunk at a time, as arrays of wire values in column order. */
export function readChunks(db: Db, spec: ReadSpec): AsyncGenerator<unknown[][]> {
  return spec.dialect === 'postgres' ? pgChunks(db, spec) : keysetChunks(db, spec);
}
