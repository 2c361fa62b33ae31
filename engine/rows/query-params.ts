import type { Column } from '../schema/model.js';
import { ORDERABLE_TYPES, parseText, TEXTUAL_TYPES } from './codec.js';
import { columnOf, RowInputError, type InputIssue, type PortableValue, type RowTable } from './types.js';

/**
 * The list filters' operators. An add-on's endpoint definitions name them too; the SDK spells
 * the same list for authors, and test/boundaries.test.ts keeps the two equal.
 */
export const FILTER_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'null'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export type Filter =
  | { column: Column; op: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte'; value: PortableValue; path: string }
  | { column: Column; op: 'in'; values: PortableValue[]; path: string }
  | { column: Column; op: 'like'; pattern: string; path: string }
  | { column: Column; op: 'null'; isNull: boolean; path: string };

export interface SortKey {
  column: Column;
  desc: boolean;
}

export interface ListParams {
  filters: Filter[];
  sort: SortKey[];
  /** The `sort` parameter as given ('' for the default): cursors remember it. */
  sortText: string;
  fields: Column[] | null;
  search: string | null;
  limit: number;
  /** Still encoded: it is checked against the full key list when the list runs. */
  cursor: string | null;
}

export interface ListParamOptions {
  table: RowTable;
  /** Columns the caller may read: the only ones it may filter, sort, search or select. */
  readable: ReadonlySet<string>;
  defaultLimit?: number;
  maxLimit?: number;
  /** Query parameters the caller handles itself (left alone here). */
  ignore?: readonly string[];
}

export const MAX_IN_VALUES = 500;
const FILTER_WITH_OP = /^filter\[(.+)\]\[([a-z]+)\]$/s;
const FILTER_EQ = /^filter\[(.+)\]$/s;
const COMPARISONS = new Set(['eq', 'ne', 'lt', 'lte', 'gt', 'gte']);

/**
 * A `like` pattern as callers write it (`%`, `_` wildcards; `\` makes the next character
 * literal) → the same pattern with `!` as the escape character, which every dialect accepts
 * in `ESCAPE '!'` without quoting rules of its own.
 */
export function likePattern(user: string): string {
  let out = '';
  for (let i = 0; i < user.length; i++) {
    const ch = user[i]!;
    if (ch === '\\' && i + 1 < user.length) {
      const next = user[++i]!;
      out += /[%_!]/.test(next) ? `!${next}` : next;
    } else out += ch === '!' ? '!!' : ch;
  }
  return out;
}

/** `search` text → a contains-pattern where every character is literal. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

const asList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : [String(v)]);

/**
 * Reads a list's query string (`filter[col][op]`, `sort`, `fields`, `search`, `limit`, `cursor`)
 * against the columns the caller may read. Every problem is collected and thrown together as a
 * RowInputError naming the parameter: a filter or sort on a column the caller cannot read is
 * refused, never ignored, so a caller can't mistake a partial answer for the answer.
 */
// Helpers of parseListParams at module level: under tsx (npm start) every named closure made
// per call also pays esbuild's __name() (Object.defineProperty), on every list request.
function readableColumn(opts: ListParamOptions, issues: InputIssue[], name: string, path: string): Column | null {
  const c = opts.readable.has(name) ? columnOf(opts.table, name) : undefined;
  if (!c) issues.push({ path, message: `No column "${name}" you may read in this table.` });
  return c ?? null;
}

function single(issues: InputIssue[], key: string, v: unknown): string | null {
  if (Array.isArray(v)) {
    issues.push({ path: `query.${key}`, message: 'Give this parameter once.' });
    return null;
  }
  return v === undefined ? null : String(v);
}

function pushFilter(out: Filter[], issues: InputIssue[], column: Column, op: FilterOp, text: string, path: string): void {
  try {
    out.push(parseFilter(column, op, text, path));
  } catch (err) {
    if (err instanceof RowInputError) issues.push(...err.issues);
    else throw err;
  }
}

export function parseListParams(query: Record<string, unknown>, opts: ListParamOptions): ListParams {
  const issues: InputIssue[] = [];
  const maxLimit = opts.maxLimit ?? 500;
  const out: ListParams = { filters: [], sort: [], sortText: '', fields: null, search: null, limit: opts.defaultLimit ?? 50, cursor: null };

  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || opts.ignore?.includes(key)) continue;
    const fm = key.startsWith('filter[') ? (FILTER_WITH_OP.exec(key) ?? FILTER_EQ.exec(key)) : null;
    if (fm) {
      const path = `query.${key}`;
      const op = (fm[2] ?? 'eq') as FilterOp;
      if (!(FILTER_OPS as readonly string[]).includes(op)) {
        issues.push({ path, message: `Unknown operator "${op}"; use one of ${FILTER_OPS.join(', ')}.` });
        continue;
      }
      const column = readableColumn(opts, issues, fm[1]!, path);
      if (!column) continue;
      for (const text of asList(value)) pushFilter(out.filters, issues, column, op, text, path);
      continue;
    }
    switch (key) {
      case 'limit': {
        const t = single(issues, key, value);
        if (t === null) break;
        const n = /^\d+$/.test(t) ? Number(t) : NaN;
        if (!Number.isSafeInteger(n) || n < 1 || n > maxLimit) issues.push({ path: 'query.limit', message: `Expected an integer from 1 to ${maxLimit}.` });
        else out.limit = n;
        break;
      }
      case 'cursor': {
        const t = single(issues, key, value);
        if (t !== null && t !== '') out.cursor = t;
        break;
      }
      case 'search': {
        const t = single(issues, key, value);
        if (t === null || t.trim() === '') break;
        if (t.length > 200) issues.push({ path: 'query.search', message: 'At most 200 characters.' });
        else if (t.includes('\u0000')) issues.push({ path: 'query.search', message: 'Text cannot hold U+0000.' });
        else out.search = t;
        break;
      }
      case 'fields': {
        const t = single(issues, key, value);
        if (t === null) break;
        const names = [...new Set(t.split(',').filter((n) => n !== ''))];
        if (names.length === 0) issues.push({ path: 'query.fields', message: 'Name at least one column.' });
        const cols = names.map((n) => readableColumn(opts, issues, n, 'query.fields')).filter((c): c is Column => c !== null);
        out.fields = cols;
        break;
      }
      case 'sort': {
        const t = single(issues, key, value);
        if (t === null || t === '') break;
        out.sortText = t;
        const seen = new Set<string>();
        for (const item of t.split(',')) {
          const desc = item.startsWith('-');
          const name = desc || item.startsWith('+') ? item.slice(1) : item;
          if (name === '') {
            issues.push({ path: 'query.sort', message: 'Empty sort key; write sort=-col,col2.' });
            continue;
          }
          const column = readableColumn(opts, issues, name, 'query.sort');
          if (!column) continue;
          if (!ORDERABLE_TYPES.has(column.type)) issues.push({ path: 'query.sort', message: `A ${column.type} column cannot be sorted on: "${name}".` });
          else if (seen.has(name)) issues.push({ path: 'query.sort', message: `"${name}" is named twice.` });
          else {
            seen.add(name);
            out.sort.push({ column, desc });
          }
        }
        break;
      }
      default:
        issues.push({ path: `query.${key}`, message: 'Unknown query parameter; filters are written filter[column][op]=value.' });
    }
  }
  if (issues.length > 0) throw new RowInputError(issues);
  return out;
}

function parseFilter(column: Column, op: FilterOp, text: string, path: string): Filter {
  const refuseOp = (why: string): never => {
    throw new RowInputError([{ path, message: why }]);
  };
  if (op === 'null') {
    const t = text.trim().toLowerCase();
    if (t !== 'true' && t !== 'false') refuseOp('Expected true (is null) or false (is not null).');
    return { column, op, isNull: t === 'true', path };
  }
  if (!ORDERABLE_TYPES.has(column.type)) refuseOp(`A ${column.type} column can only be tested with the null operator.`);
  if (op === 'like') {
    if (!TEXTUAL_TYPES.has(column.type)) refuseOp('like works on text columns only.');
    if (text.includes('\u0000')) refuseOp('Text cannot hold U+0000.');
    return { column, op, pattern: likePattern(text), path };
  }
  if (op === 'in') {
    const parts = text.split(',');
    if (parts.length > MAX_IN_VALUES) refuseOp(`At most ${MAX_IN_VALUES} values.`);
    return { column, op, values: parts.map((p) => parseText(column, p, path)), path };
  }
  if (column.type === 'boolean' && op !== 'eq' && op !== 'ne') refuseOp('A boolean column takes eq, ne, in and null.');
  if (!COMPARISONS.has(op)) refuseOp(`Unknown operator "${op}".`);
  return { column, op: op as 'eq', value: parseText(column, text, path), path };
}
