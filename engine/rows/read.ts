import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import type { Column } from '../schema/model.js';
import { ORDERABLE_TYPES, SEARCHABLE_TYPES } from './codec.js';
import type { TokenSigner } from '../../kernel/crypto.js';
import { cursorContext, decodeRowCursor, encodeRowCursor } from './cursor.js';
import type { AnyDb, RowDialect } from './dialect.js';
import type { PlannerEstimates } from './planner-estimates.js';
import { containsPattern, type Filter, type ListParams, type SortKey } from './query-params.js';
import { recordIdsOf } from './record-id.js';
import { asValue, idOf, statement, type Embed } from './statements.js';
import { setField, wireRowMaker } from './wire-row.js';
import { primaryKeyColumns, type PortableValue, type RowTable } from './types.js';

type Sql = RawBuilder<unknown>;
const and = (parts: Sql[]): Sql => (parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` and `)})`);
const or = (parts: Sql[]): Sql => (parts.length === 1 ? parts[0]! : sql`(${sql.join(parts, sql` or `)})`);
const FALSE = sql`1 = 0`;

// Column aliases c0, c1, …: made once, not per field of every row (a hot path of every list).
const ALIASES: string[] = Array.from({ length: 1024 }, (_, i) => `c${i}`);
const alias = (i: number) => ALIASES[i] ?? `c${i}`;

/** `expr as "c0", …`: positional aliases, so no column name ever becomes a key of a driver's row object. */
export function selectList(d: RowDialect, columns: readonly Column[]): Sql {
  return sql.join(columns.map((c, i) => sql`${d.select(c)} as ${sql.id(alias(i))}`));
}

/** A driver row (aliased by selectList) → its raw values in column order. */
export function rawValues(row: Record<string, unknown>, count: number): unknown[] {
  const out = new Array<unknown>(count);
  for (let i = 0; i < count; i++) out[i] = row[alias(i)];
  return out;
}

export function toWireRow(d: RowDialect, columns: readonly Column[], raw: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) setField(out, columns[i]!.name, d.toWire(columns[i]!, raw[i]));
  return out;
}

// Every value goes through `embed` exactly once, in the order listValues() gives them.
function filterSql(d: RowDialect, f: Filter, embed: Embed): Sql {
  const col = sql.id(f.column.name);
  const v = (x: PortableValue) => embed(d.bind(f.column, x));
  switch (f.op) {
    case 'null':
      return f.isNull ? sql`${col} is null` : sql`${col} is not null`;
    case 'like':
      return d.ilike(f.column, embed(f.pattern));
    case 'in':
      return f.values.length === 0 ? FALSE : sql`${col} in (${sql.join(f.values.map(v))})`;
    case 'eq':
      return f.value === null ? sql`${col} is null` : sql`${col} = ${v(f.value)}`;
    // "not equal" keeps the rows where the column is NULL: what someone excluding one value means.
    case 'ne':
      return f.value === null ? sql`${col} is not null` : f.column.nullable ? sql`(${col} <> ${v(f.value)} or ${col} is null)` : sql`${col} <> ${v(f.value)}`;
    case 'lt':
      return sql`${col} < ${v(f.value)}`;
    case 'lte':
      return sql`${col} <= ${v(f.value)}`;
    case 'gt':
      return sql`${col} > ${v(f.value)}`;
    case 'gte':
      return sql`${col} >= ${v(f.value)}`;
  }
}

/** The WHERE of a list and of its count: every filter, and `search` over the searchable columns. */
export function whereSql(d: RowDialect, filters: readonly Filter[], search: string | null, searchable: readonly Column[], embed: Embed = asValue): Sql | null {
  const parts = filters.map((f) => filterSql(d, f, embed));
  if (search !== null) {
    const cols = searchable.filter((c) => SEARCHABLE_TYPES.has(c.type));
    if (cols.length === 0) parts.push(FALSE);
    else {
      const pattern = embed(containsPattern(search));
      parts.push(or(cols.map((c) => d.ilike(c, pattern))));
    }
  }
  return parts.length === 0 ? null : and(parts);
}

const isNull = (v: unknown) => v === null || v === undefined;

/**
 * The parameter values of a list, in the order its statement embeds them (whereSql, then
 * keysetSql): what a cached statement text is run with.
 */
function listValues(
  d: RowDialect,
  filters: readonly Filter[],
  search: string | null,
  searchable: readonly Column[],
  last: readonly unknown[] | null,
): unknown[] {
  const out: unknown[] = [];
  for (const f of filters) {
    switch (f.op) {
      case 'null':
        break;
      case 'like':
        out.push(f.pattern);
        break;
      case 'in':
        for (const x of f.values) out.push(d.bind(f.column, x));
        break;
      default:
        if (f.value !== null) out.push(d.bind(f.column, f.value));
    }
  }
  if (search !== null && searchable.length > 0) out.push(containsPattern(search));
  if (last) for (const v of last) if (!isNull(v)) out.push(v);
  return out;
}

/** Everything the text of a list statement depends on besides the table (the statement cache's owner). */
function shapeKey(
  d: RowDialect,
  limit: number,
  selected: readonly Column[],
  keys: readonly SortKey[],
  filters: readonly Filter[],
  search: string | null,
  searchable: readonly Column[],
  last: readonly unknown[] | null,
): string {
  let k = `${d.name}|${limit}|`;
  for (const c of selected) k += `${idOf(c)},`;
  k += '|';
  for (const s of keys) k += `${s.desc ? '-' : '+'}${idOf(s.column)}`;
  k += '|';
  for (const f of filters) {
    k += `${idOf(f.column)}${f.op}`;
    if (f.op === 'in') k += f.values.length;
    else if (f.op === 'null') k += f.isNull ? 't' : 'f';
    else if (f.op !== 'like' && f.value === null) k += 'n';
    k += ',';
  }
  k += '|';
  if (search !== null) for (const c of searchable) k += `${idOf(c)},`;
  k += '|';
  if (last) for (const v of last) k += isNull(v) ? 'n' : 'v';
  return k;
}

/** The sort the caller asked for, then the primary key (a total order), or every orderable column when there is none. */
export function orderKeys(table: RowTable, sort: readonly SortKey[]): SortKey[] {
  const pk = primaryKeyColumns(table);
  // Already a total order (the public API's default, newest key first): nothing to add.
  if (pk.length > 0 && pk.every((c) => sort.some((k) => k.column.name === c.name))) return [...sort];
  const named = new Set(sort.map((k) => k.column.name));
  const tail = pk.length > 0 ? pk : table.columns.filter((c) => ORDERABLE_TYPES.has(c.type));
  // Ties break in the direction of the last sort key, so `-created` pages as (created, id)
  // descending: one direction lets an index on (created, id) be read backwards.
  const desc = sort.length > 0 ? sort[sort.length - 1]!.desc : false;
  return [...sort, ...tail.filter((c) => !named.has(c.name)).map((column) => ({ column, desc }))];
}

/** NULL sorts as the largest value on every dialect: last ascending, first descending. */
export function orderBySql(d: RowDialect, keys: readonly SortKey[]): Sql {
  const parts: Sql[] = [];
  for (const k of keys) {
    const col = d.order(k.column);
    const dir = k.desc ? sql`desc` : sql`asc`;
    if (k.column.nullable && !d.nullsLargest) parts.push(sql`(${col} is null) ${dir}`);
    parts.push(sql`${col} ${dir}`);
  }
  return sql.join(parts);
}

/**
 * Rows strictly after `last` in the order of `keys` (the classic expansion
 * k1 > v1 OR (k1 = v1 AND k2 > v2) …), with NULL as the largest value: correct across ties,
 * because the primary key ends every key list, and across NULLs.
 */
export function keysetSql(d: RowDialect, keys: readonly SortKey[], lastValues: readonly unknown[], embed: Embed = asValue): Sql {
  // Each value is embedded once (the OR expansion below repeats it); a NULL is no parameter.
  const last = lastValues.map((v) => (isNull(v) ? null : embed(v)));
  // One direction, no NULLs involved: a row-value comparison, which every dialect here turns
  // into one index range scan (the OR expansion below often cannot use the index at all).
  const sameDirection = keys.every((k) => k.desc === keys[0]!.desc);
  if (keys.length > 1 && sameDirection && keys.every((k, i) => !k.column.nullable && last[i] !== null && last[i] !== undefined)) {
    const cols = sql.join(keys.map((k) => d.order(k.column)));
    const vals = sql.join(keys.map((_k, i) => sql`${last[i]}`));
    return keys[0]!.desc ? sql`(${cols}) < (${vals})` : sql`(${cols}) > (${vals})`;
  }
  const eq = (k: SortKey, v: unknown): Sql => (v === null ? sql`${d.order(k.column)} is null` : sql`${d.order(k.column)} = ${v}`);
  const after = (k: SortKey, v: unknown): Sql | null => {
    const col = d.order(k.column);
    if (v === null) return k.desc ? sql`${col} is not null` : null;
    if (k.desc) return sql`${col} < ${v}`;
    return k.column.nullable ? sql`(${col} > ${v} or ${col} is null)` : sql`${col} > ${v}`;
  };
  const branches: Sql[] = [];
  keys.forEach((k, i) => {
    const a = after(k, last[i] ?? null);
    if (a) branches.push(and([...keys.slice(0, i).map((p, j) => eq(p, last[j] ?? null)), a]));
  });
  return branches.length === 0 ? FALSE : or(branches);
}

export interface ListOptions {
  /** The columns each answered row carries, in order (the primary key is added when missing). */
  output: readonly Column[];
  /** Columns `search` looks in (the caller's readable ones). */
  searchable: readonly Column[];
  cursorPath?: string;
  /** Signs the cursors this list hands out and opens the ones it is given (`kernel.signer('rows.cursor')`). */
  cursors: TokenSigner;
  /** false: `recordIds` stays empty (a caller that never addresses rows by id need not pay for them). */
  recordIds?: boolean;
}

export interface RowPage {
  rows: Record<string, unknown>[];
  recordIds: Array<string | null>;
  nextCursor: string | null;
}

/** One page of a list: filters, search, sort with the key as tie-break, keyset (or offset) paging. */
export async function listRows(db: AnyDb, d: RowDialect, table: RowTable, p: ListParams, opts: ListOptions): Promise<RowPage> {
  const pk = primaryKeyColumns(table);
  const keys = orderKeys(table, p.sort);
  const signature = p.sortText;
  const signing = { signer: opts.cursors, context: cursorContext(table, keys) };
  const cursor =
    p.cursor === null ? null : decodeRowCursor(p.cursor, signature, pk.length > 0 ? keys.length : null, opts.cursorPath ?? 'query.cursor', signing);
  const output = pk.every((c) => opts.output.includes(c)) ? opts.output : [...opts.output, ...pk.filter((c) => !opts.output.includes(c))];
  const selected = keys.every((k) => output.includes(k.column)) ? output : [...output, ...keys.map((k) => k.column).filter((c) => !output.includes(c))];
  const searchable = p.search === null ? [] : opts.searchable.filter((c) => SEARCHABLE_TYPES.has(c.type));
  const last = cursor && 'keys' in cursor ? cursor.keys : null;
  const offset = cursor && 'offset' in cursor ? cursor.offset : 0;

  const values = listValues(d, p.filters, p.search, searchable, last);
  // Offsets are literals in the text: those pages (tables without a key) are not kept.
  const shape = offset ? null : shapeKey(d, p.limit, selected, keys, p.filters, p.search, searchable, last);
  const query = statement(db, table, shape, values, (embed) => {
    const conditions: Sql[] = [];
    const where = whereSql(d, p.filters, p.search, searchable, embed);
    if (where) conditions.push(where);
    if (last) conditions.push(keysetSql(d, keys, last, embed));
    return sql`select ${selectList(d, selected)} from ${d.table(table)}${conditions.length ? sql` where ${and(conditions)}` : sql``}${
      keys.length ? sql` order by ${orderBySql(d, keys)}` : sql``
    } limit ${sql.lit(p.limit + 1)}${offset ? sql` offset ${sql.lit(offset)}` : sql``}`;
  });
  const found = (await (d.readRows?.(db, query) ?? db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(query.sql, [...query.parameters])))).rows;
  const more = found.length > p.limit;
  const page = more ? found.slice(0, p.limit) : found;

  let nextCursor: string | null = null;
  if (more) {
    const last = page[page.length - 1]!;
    nextCursor =
      pk.length > 0
        ? encodeRowCursor({ sort: signature, keys: keys.map((k) => last[alias(selected.indexOf(k.column))]) }, signing)
        : encodeRowCursor({ sort: signature, offset: offset + p.limit }, signing);
  }
  const rows = page.map(wireRowMaker(d, output));
  return { rows, recordIds: opts.recordIds === false ? [] : recordIdsOf(table, rows), nextCursor };
}

export interface RowCount {
  total: number | null;
  exact: boolean;
}

export interface CountOptions {
  /** Below this many rows by the planner's figure, count exactly. */
  exactBelow?: number;
  /** Where the planner's figure is kept between requests; `scope` names the source (the statement names the table and filter). */
  estimates?: { cache: PlannerEstimates; scope: string };
}

/**
 * Counts exactly when that is cheap: always on SQLite (a file on this machine), elsewhere when
 * the planner expects fewer than `exactBelow` rows; above that the planner's estimate, which
 * costs no scan, and with `estimates` no round trip either once the figure is known.
 */
export async function countRows(db: AnyDb, d: RowDialect, table: RowTable, where: Sql | null, opts: CountOptions = {}): Promise<RowCount> {
  const exactBelow = opts.exactBelow ?? 100_000;
  // Built only when a statement is: a kept figure for the whole table needs none.
  const filter = () => (where ? sql` where ${where}` : sql``);
  if (d.name !== 'sqlite') {
    // Compiled only when needed: an unfiltered page's figure is known by the table's name alone,
    // and the planner is asked only when the cache has no fresh figure.
    let statement: CompiledQuery | undefined;
    const compiled = () => (statement ??= sql`select 1 from ${d.table(table)}${filter()}`.compile(db));
    const explain = () => d.explainRows(db, compiled()).catch(() => null);
    const kept = opts.estimates ? opts.estimates.cache.read(estimateKey(opts.estimates.scope, table, where ? compiled() : null), explain) : explain();
    const estimate = kept instanceof Promise ? await kept : kept;
    if (estimate !== null && estimate >= exactBelow) return { total: estimate, exact: false };
  }
  const res = await sql<{ n: number | string | bigint }>`select count(*) as ${sql.id('n')} from ${d.table(table)}${filter()}`.execute(db);
  return { total: Number(res.rows[0]?.n ?? 0), exact: true };
}

// The whole table's key, one string per table and scope: a string made once keeps its hash, so
// the cache's lookups on every page need not hash a new one.
const tableKeys = new WeakMap<RowTable, { scope: string; schema: string | null | undefined; name: string; key: string }>();

/** The cache key of a figure: the whole table by its name, a filtered one by its statement and values. */
function estimateKey(scope: string, table: RowTable, filtered: CompiledQuery | null): string {
  if (!filtered) {
    const kept = tableKeys.get(table);
    if (kept && kept.scope === scope && kept.schema === table.schema && kept.name === table.name) return kept.key;
    const key = `${scope}\u0000table\u0000${table.schema ?? ''}\u0000${table.name}`;
    tableKeys.set(table, { scope, schema: table.schema, name: table.name, key });
    return key;
  }
  return `${scope}\u0000sql\u0000${filtered.sql}\u0000${JSON.stringify(filtered.parameters, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
}

/** `pk1 = ? and pk2 = ?` for a row's key. */
export function keySql(d: RowDialect, table: RowTable, key: readonly PortableValue[]): Sql {
  return and(primaryKeyColumns(table).map((c, i) => sql`${sql.id(c.name)} = ${d.bind(c, key[i] ?? null)}`));
}

/** One row by its key, raw values in `columns` order, or null. `forUpdate` locks it until the transaction ends. */
export async function readRow(
  db: AnyDb,
  d: RowDialect,
  table: RowTable,
  key: readonly PortableValue[],
  columns: readonly Column[],
  forUpdate = false,
): Promise<unknown[] | null> {
  const lock = forUpdate && d.forUpdate ? sql` for update` : sql``;
  const res = await sql<Record<string, unknown>>`select ${selectList(d, columns)} from ${d.table(table)} where ${keySql(d, table, key)}${lock}`.execute(db);
  const row = res.rows[0];
  return row ? rawValues(row, columns.length) : null;
}
