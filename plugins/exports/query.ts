import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import type { ErrorIssue } from '../../kernel/api.js';
import { containsPattern, likePattern, rowDialect, SEARCHABLE_TYPES } from '../../engine/rows/index.js';
import type { Column } from '../../engine/schema/model.js';
import type { SourceDialect } from '../connections/provides.js';

/*
 * The filter and sort of "a filtered query" export, in D12's vocabulary (ops eq ne lt lte gt
 * gte in like null; sort "-col,col2") as a JSON body. Kept here until engine/rows ships its
 * builder (its README describes the same ops), then this becomes a call to it.
 */

const scalar = z.union([z.string().max(2000), z.number(), z.boolean()]);
export const filterOpsSchema = z
  .strictObject({
    eq: scalar.optional(),
    ne: scalar.optional(),
    lt: scalar.optional(),
    lte: scalar.optional(),
    gt: scalar.optional(),
    gte: scalar.optional(),
    in: z.array(scalar).min(1).max(500).optional(),
    like: z.string().max(2000).optional(),
    null: z.boolean().optional(),
  })
  .meta({ description: 'Conditions on one column, all of which must hold.' });
const filterByColumnSchema = z
  .record(z.string().min(1).max(255), filterOpsSchema)
  .meta({ description: 'D12 filters by column: {"status": {"eq": "paid"}, "total": {"gte": 10}, "deleted_at": {"null": true}}.' });
export const filterSchema = z.union([filterByColumnSchema, z.array(filterByColumnSchema).min(1).max(20)]).meta({
  description:
    'D12 filters by column, or a list of such objects that must all hold: the list says what one object cannot, such as two conditions of one operator on one column ([{"total": {"gte": 10}}, {"total": {"gte": 20}}]).',
});
export type Filter = z.infer<typeof filterSchema>;

/** Text contained in any readable text column (the data API's `search`, the same rule). */
export const searchSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((t) => !t.includes('\u0000'), 'Text cannot hold U+0000.')
  .meta({ description: "Rows holding this text in any readable text column, case-insensitively: the grid's search." });
export const sortSchema = z.string().min(1).max(2000).meta({ description: 'D12 sort: "-created_at,id" (a minus sorts descending).' });

export interface SortKey {
  column: string;
  desc: boolean;
}

type Scalar = z.infer<typeof scalar>;

const COMPARABLE = new Set(['string', 'text', 'enum', 'uuid', 'integer', 'bigint', 'decimal', 'float', 'boolean', 'date', 'datetime', 'time']);
const TEXTUAL = new Set(['string', 'text', 'enum', 'uuid']);

/** A filter value as the driver should bind it: booleans as 1/0 where the column is an integer underneath. */
function bindValue(dialect: SourceDialect, column: Column, v: Scalar): unknown {
  if (column.type === 'boolean') {
    const b = v === true || v === 1 || v === 'true' || v === '1' ? true : v === false || v === 0 || v === 'false' || v === '0' ? false : v;
    return typeof b === 'boolean' && dialect !== 'postgres' ? (b ? 1 : 0) : b;
  }
  return v;
}

/**
 * How a filter value enters the SQL: `typed` compares with the column (the value takes the
 * column's type), `text` is a LIKE pattern. The default binds a parameter; PostgreSQL's COPY
 * takes none, so the COPY export binds through transaction settings instead (pg-copy.ts).
 */
export type FilterBind = (column: Column, value: unknown, form: 'typed' | 'text') => RawBuilder<unknown>;
export const bindParameter: FilterBind = (_column, value) => sql`${value}`;

/** `a is distinct from b`, spelt per dialect: NULL counts as a value, so `ne` keeps rows holding NULL. */
function distinct(dialect: SourceDialect, col: RawBuilder<unknown>, v: RawBuilder<unknown>): RawBuilder<boolean> {
  if (dialect === 'postgres') return sql<boolean>`${col} is distinct from ${v}`;
  if (dialect === 'mysql') return sql<boolean>`not (${col} <=> ${v})`;
  return sql<boolean>`${col} is not ${v}`;
}

/**
 * The WHERE conditions of a filter, or the issues naming each bad part (`body.filter.<col>.<op>`,
 * `body.filter.<i>.<col>.<op>` in the list form).
 * `readable` is what the caller may see: filtering on anything else would leak it.
 */
export function buildFilter(
  dialect: SourceDialect,
  columns: Map<string, Column>,
  readable: Set<string>,
  filter: Filter | undefined,
  issues: ErrorIssue[],
  bind: FilterBind = bindParameter,
): RawBuilder<boolean>[] {
  const out: RawBuilder<boolean>[] = [];
  const parts = Array.isArray(filter) ? filter.map((f, i) => [f, `body.filter.${i}`] as const) : [[filter ?? {}, 'body.filter'] as const];
  for (const [byColumn, base] of parts) out.push(...columnConditions(dialect, columns, readable, byColumn, base, issues, bind));
  return out;
}

/** The columns a search looks in: the readable text columns, the data API's rule (engine/rows whereSql). */
export function searchableColumns(columns: Map<string, Column>, readable: Set<string>): Column[] {
  return [...columns.values()].filter((c) => readable.has(c.name) && SEARCHABLE_TYPES.has(c.type));
}

/** Rows holding `search`, case-insensitively, in any of `columns`; no column means no row. */
export function buildSearch(dialect: SourceDialect, columns: readonly Column[], search: string, bind: FilterBind = bindParameter): RawBuilder<boolean> {
  if (columns.length === 0) return sql<boolean>`1 = 0`;
  const rows = rowDialect(dialect);
  return sql<boolean>`(${sql.join(columns.map((c) => rows.ilike(c, bind(c, containsPattern(search), 'text'))) as RawBuilder<boolean>[], sql` or `)})`;
}

function columnConditions(
  dialect: SourceDialect,
  columns: Map<string, Column>,
  readable: Set<string>,
  filter: Record<string, z.infer<typeof filterOpsSchema>>,
  base: string,
  issues: ErrorIssue[],
  bind: FilterBind,
): RawBuilder<boolean>[] {
  const out: RawBuilder<boolean>[] = [];
  for (const [name, ops] of Object.entries(filter)) {
    const column = columns.get(name);
    const at = `${base}.${name}`;
    if (!column || !readable.has(name)) {
      issues.push({ path: at, code: 'unknown_column', message: 'No readable column of this name.' });
      continue;
    }
    const col = sql`${sql.id(name)}`;
    for (const [op, value] of Object.entries(ops) as Array<[keyof typeof ops, unknown]>) {
      if (value === undefined) continue;
      if (op === 'null') {
        out.push(value ? sql<boolean>`${col} is null` : sql<boolean>`${col} is not null`);
        continue;
      }
      if (!COMPARABLE.has(column.type)) {
        issues.push({ path: `${at}.${op}`, code: 'not_filterable', message: `A ${column.type} column takes the null operator only.` });
        continue;
      }
      if (op === 'like') {
        if (!TEXTUAL.has(column.type)) {
          issues.push({ path: `${at}.like`, code: 'not_filterable', message: 'like applies to text columns.' });
          continue;
        }
        // The data API's like (engine/rows): `\` makes the next character literal, case-insensitive
        // everywhere (MySQL databases with a _bin collation would not be otherwise).
        out.push(rowDialect(dialect).ilike(column, bind(column, likePattern(value as string), 'text')) as RawBuilder<boolean>);
        continue;
      }
      if (op === 'in') {
        const values = (value as Scalar[]).map((v) => bind(column, bindValue(dialect, column, v), 'typed'));
        out.push(sql<boolean>`${col} in (${sql.join(values)})`);
        continue;
      }
      const v = bind(column, bindValue(dialect, column, value as Scalar), 'typed');
      if (op === 'ne') out.push(distinct(dialect, col, v));
      else out.push(sql<boolean>`${col} ${sql.raw({ eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' }[op])} ${v}`);
    }
  }
  return out;
}

/** "-created_at,id" → keys; unknown or unreadable columns are issues at `body.sort`. */
export function parseSort(spec: string | undefined, columns: Map<string, Column>, readable: Set<string>, issues: ErrorIssue[]): SortKey[] {
  if (!spec) return [];
  const keys: SortKey[] = [];
  for (const part of spec.split(',')) {
    const desc = part.startsWith('-');
    const column = desc ? part.slice(1) : part;
    const c = columns.get(column);
    if (!c || !readable.has(column)) issues.push({ path: 'body.sort', code: 'unknown_column', message: `No readable column "${column}".` });
    else if (!COMPARABLE.has(c.type)) issues.push({ path: 'body.sort', code: 'not_sortable', message: `A ${c.type} column cannot be sorted on.` });
    else if (!keys.some((k) => k.column === column)) keys.push({ column, desc });
  }
  return keys;
}
