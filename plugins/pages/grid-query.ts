import { z } from 'zod';
import type { ErrorIssue } from '../../kernel/api.js';
import { FILTER_OPS, parseListParams, RowInputError } from '../../engine/rows/index.js';
import type { CallerTable } from './table-access.js';

const columnName = z.string().min(1).max(255);

/**
 * One filter of the data API's grammar (`filter[column][op]=value`) as JSON: `value` is the
 * text the query string would carry (`in`: comma-separated; `null`: true or false) (decisions PG5).
 */
export const gridFilterSchema = z
  .strictObject({ column: columnName, op: z.enum(FILTER_OPS), value: z.string().max(10_000) })
  .meta({ id: 'PageFilter', description: 'filter[column][op]=value of GET /data/{conn}/{table}, as JSON.' });
export type GridFilter = z.infer<typeof gridFilterSchema>;

/** What a grid's URL holds (DB23), the parts GET /data/{conn}/{table} takes. */
export interface GridQuery {
  /** As the data API's `sort`: `-col,col2`. */
  sort?: string | undefined;
  search?: string | undefined;
  filters?: GridFilter[] | undefined;
  /** As the data API's `fields`, listed. */
  columns?: string[] | undefined;
}

const unknownColumn = (path: string, name: string): ErrorIssue => ({ path, code: 'unknown-column', message: `No column "${name}" in this table.` });

/**
 * Checks a grid query against the table as the caller reads it, with the data API's own parser
 * (`parseListParams`), answering issues under `path` (`body.query`, `body`). A column the caller
 * cannot read is `unknown-column`, as one the table lacks (never "forbidden").
 */
export function checkGridQuery(access: CallerTable, query: GridQuery, path: string): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  const known = (name: string) => access.readable.has(name);
  const params: Record<string, unknown> = {};
  const filterIndex = new Map<string, number>();
  query.filters?.forEach((f, i) => {
    if (!known(f.column)) return issues.push(unknownColumn(`${path}.filters.${i}.column`, f.column));
    const key = `filter[${f.column}][${f.op}]`;
    if (!filterIndex.has(key)) filterIndex.set(key, i);
    const prev = params[key];
    params[key] = prev === undefined ? f.value : [...(Array.isArray(prev) ? prev : [prev]), f.value];
  });
  if (query.columns) {
    query.columns.forEach((c, i) => {
      if (!known(c)) issues.push(unknownColumn(`${path}.columns.${i}`, c));
    });
    const good = query.columns.filter(known);
    if (good.length) params.fields = good.join(',');
  }
  if (query.sort !== undefined && query.sort !== '') {
    const keys = query.sort.split(',');
    const unknown = keys.map((k) => (k.startsWith('-') || k.startsWith('+') ? k.slice(1) : k)).filter((n) => n !== '' && !known(n));
    for (const n of unknown) issues.push(unknownColumn(`${path}.sort`, n));
    if (!unknown.length) params.sort = query.sort;
  }
  if (query.search !== undefined) params.search = query.search;
  try {
    parseListParams(params, { table: access.table, readable: access.readable });
  } catch (err) {
    if (!(err instanceof RowInputError)) throw err;
    for (const issue of err.issues) {
      const name = issue.path.replace(/^query\./, '');
      const at = filterIndex.has(name) ? `filters.${filterIndex.get(name)}` : name === 'fields' ? 'columns' : name;
      issues.push({ path: `${path}.${at}`, code: 'invalid', message: issue.message });
    }
  }
  return issues;
}
