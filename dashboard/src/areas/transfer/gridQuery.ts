// Imports carry .js: the tests (node16 resolution) read this file too.
import { FILTER_OPS, type FilterOp } from '../../api/filter-ops.js';

/** What this needs of a column of the schema. */
interface Column {
  name: string;
  type: string;
}
type Scalar = string | number | boolean;
/**
 * The exports' filter body (D12 ops as JSON): `{col: {op: value}}`, or a list of such objects that
 * must all hold (two conditions of one operator on one column, EX9); the typed client's
 * `Export['filter']` takes it.
 */
type Ops = { eq?: Scalar; ne?: Scalar; lt?: Scalar; lte?: Scalar; gt?: Scalar; gte?: Scalar; in?: Scalar[]; like?: string; null?: boolean };
type FilterByColumn = Record<string, Ops>;
export type ExportFilter = FilterByColumn | FilterByColumn[];

const FILTER_WITH_OP = /^filter\[(.+)\]\[([a-z]+)\]$/s;
const FILTER_EQ = /^filter\[(.+)\]$/s;
const NUMERIC = new Set(['integer', 'float']);

/** One condition of the grid's query, as the export screen lists it. */
export interface Condition {
  column: string;
  op: FilterOp;
  value: string;
}

export interface GridQuery {
  /** null when the grid filters nothing. */
  filter: ExportFilter | null;
  /** The conditions in the order the grid gave them (for the screen). */
  conditions: Condition[];
  sort: string | null;
  /** `fields`: the grid's shown columns, if it said. */
  fields: string[] | null;
  /** `search`: text in any readable text column, which the export applies the same way (EX9). */
  search: string | null;
  /** Parameters that could not be carried over (unknown ops, a column the table lacks). */
  dropped: string[];
}

/** A value as the grid wrote it, typed for the column: numbers for integer and float columns, booleans for boolean ones. */
function typed(column: Column | undefined, text: string): Scalar {
  if (column?.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  if (column && NUMERIC.has(column.type) && text.trim() !== '' && Number.isFinite(Number(text))) {
    const n = Number(text);
    if (column.type !== 'integer' || Number.isSafeInteger(n)) return n;
  }
  return text;
}

/**
 * The data API list's query (`filter[col][op]=value`, `filter[col]=value`, `sort`, `fields`,
 * `search`; GET /data/{connectionId}/{table}) as the exports' `filter` object and `sort`.
 * `limit` and `cursor` page the grid and mean nothing to an export.
 */
export function gridQueryToExport(search: string, columns: readonly Column[]): GridQuery {
  const params = new URLSearchParams(search);
  const byName = new Map(columns.map((c) => [c.name, c]));
  const out: GridQuery = { filter: null, conditions: [], sort: null, fields: null, search: null, dropped: [] };
  // Each condition goes into the first object without that column's operator, so all of them hold.
  const parts: FilterByColumn[] = [];
  for (const [key, value] of params) {
    const m = FILTER_WITH_OP.exec(key) ?? FILTER_EQ.exec(key);
    if (m) {
      const name = m[1]!;
      const op = (m[2] ?? 'eq') as FilterOp;
      const column = byName.get(name);
      if (!(FILTER_OPS as readonly string[]).includes(op) || !column) {
        out.dropped.push(`${key}=${value}`);
        continue;
      }
      let part = parts.find((p) => p[name]?.[op] === undefined);
      if (!part) parts.push((part = {}));
      const ops: Ops = (part[name] ??= {});
      if (op === 'null') ops.null = value.trim().toLowerCase() === 'true';
      else if (op === 'in') ops.in = value.split(',').map((v) => typed(column, v));
      else if (op === 'like') ops.like = value;
      else ops[op] = typed(column, value);
      out.conditions.push({ column: name, op, value });
      continue;
    }
    if (key === 'sort' && value !== '') {
      out.sort = value
        .split(',')
        .map((part) => (part.startsWith('+') ? part.slice(1) : part))
        .filter((part) => part !== '' && part !== '-')
        .join(',');
      if (out.sort === '') out.sort = null;
    } else if (key === 'fields' && value !== '') out.fields = value.split(',').filter((f) => byName.has(f));
    else if (key === 'search' && value.trim() !== '') out.search = value;
    else if (key !== 'limit' && key !== 'cursor' && key !== 'sort' && key !== 'fields' && key !== 'search') out.dropped.push(`${key}=${value}`);
  }
  out.filter = parts.length === 0 ? null : parts.length === 1 ? parts[0]! : parts;
  return out;
}

/** An export's query (a table report's) as the grid's query string: the inverse of gridQueryToExport. */
export function exportToGridQuery(
  query: { filter?: ExportFilter | null; search?: string | null; sort?: string | null; columns?: string[] | null } | undefined,
): string {
  const params = new URLSearchParams();
  const parts = Array.isArray(query?.filter) ? query.filter : query?.filter ? [query.filter] : [];
  for (const part of parts)
    for (const [column, ops] of Object.entries(part))
      for (const [op, value] of Object.entries(ops)) params.append(`filter[${column}][${op}]`, Array.isArray(value) ? value.join(',') : String(value));
  if (query?.search) params.set('search', query.search);
  if (query?.sort) params.set('sort', query.sort);
  if (query?.columns?.length) params.set('fields', query.columns.join(','));
  return decodeURIComponent(params.toString());
}
