import type { ErrorIssue } from '../../kernel/api.js';
import type { Column } from '../../engine/schema/model.js';
import type { SourceDialect } from '../connections/provides.js';
import type { EffectiveTable } from '../schema/provides.js';
import { buildFilter, buildSearch, parseSort, searchableColumns, type Filter, type FilterBind } from './query.js';
import type { ReadSpec } from './read.js';

export const CHUNK_ROWS = 5000;

export interface PlanInput {
  columns?: string[];
  filter?: Filter | null;
  search?: string | null;
  /** The columns the search looks in, as stored when the export was asked for; default the readable text columns. */
  searchIn?: string[] | null;
  sort?: string | null;
}

/**
 * The read an export makes, checked against the table: named columns exist and may be read,
 * secret columns never leave, filter and sort name readable columns. `readable` is what the
 * caller's data.read scope reaches (already without secret columns). Problems are issues at
 * the body path that caused them.
 */
export function planRead(dialect: SourceDialect, table: EffectiveTable, readable: Set<string>, input: PlanInput, issues: ErrorIssue[]): ReadSpec {
  const byName = new Map<string, Column>(table.columns.map((c) => [c.name, c]));
  let names: string[];
  if (input.columns) {
    names = [];
    input.columns.forEach((name, i) => {
      const c = table.columns.find((x) => x.name === name);
      if (!c) issues.push({ path: `body.columns.${i}`, code: 'unknown_column', message: `The table has no column "${name}".` });
      else if (c.display.secret) issues.push({ path: `body.columns.${i}`, code: 'secret_column', message: 'Secret columns are never exported.' });
      else if (!readable.has(name))
        issues.push({ path: `body.columns.${i}`, code: 'not_readable', message: 'Your data.read grant does not reach this column.' });
      else if (names.includes(name)) issues.push({ path: `body.columns.${i}`, code: 'duplicate', message: 'Named twice.' });
      else names.push(name);
    });
  } else {
    names = table.columns.filter((c) => readable.has(c.name) && !c.display.hidden).map((c) => c.name);
    if (names.length === 0) issues.push({ path: 'body.columns', code: 'no_columns', message: 'No column of this table may be exported; name some.' });
  }
  const search = input.search ?? null;
  // A stored export searches the columns its asker could read then, not what every column holds now.
  const searched = input.searchIn
    ? input.searchIn.map((n) => byName.get(n)).filter((c): c is Column => c !== undefined && readable.has(c.name))
    : searchableColumns(byName, readable);
  const conditions = (found: ErrorIssue[], bind?: FilterBind) => [
    ...buildFilter(dialect, byName, readable, input.filter ?? undefined, found, bind),
    ...(search === null ? [] : [buildSearch(dialect, searched, search, bind)]),
  ];
  const where = conditions(issues);
  // The same conditions with values bound another way; the issues were collected just above.
  const whereWith = (bind: FilterBind) => conditions([], bind);
  const sort = parseSort(input.sort ?? undefined, byName, readable, issues);
  return {
    dialect,
    table: { schema: table.schema, name: table.name },
    columns: names.map((n) => byName.get(n)!),
    byName,
    where,
    whereWith,
    sort,
    searched: search === null ? [] : searched.map((c) => c.name),
    key: table.primaryKey?.columns ?? null,
    chunkRows: CHUNK_ROWS,
  };
}
