import {
  listRows,
  parseListParams,
  parseRecordId,
  RowInputError,
  setField,
  toWireRow,
  type ListParams,
  type PortableValue,
  type RowPage,
} from '../../engine/rows/index.js';
import type { Column } from '../../engine/schema/model.js';
import type { ResponseShape } from '../public-admin/provides.js';
import { onSource, openEndpoint, type Opened, type PublicCall } from './access.js';
import { windowGuard } from './booking/guards.js';
import { queryRefused, refNotFound } from './errors.js';
import { readInScope } from './query/scoped.js';
import type { PublicApi } from './service.js';

export const PAGE = { default: 20, max: 200 } as const;

/** A refused request that found nothing: it does not count toward the whole-key limit. */
export function missing(opened: Opened): never {
  opened.charge.refundKey();
  throw refNotFound();
}

export function pick(row: Record<string, unknown>, columns: readonly Column[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const c of columns) setField(out, c.name, row[c.name] ?? null);
  return out;
}

/** A record id that cannot be a key of this table names no row: the same 404 as any other. */
export function keyOf(opened: Opened, id: string): PortableValue[] {
  try {
    return parseRecordId(opened.table, id, 'params.id');
  } catch (err) {
    if (err instanceof RowInputError) missing(opened);
    throw err;
  }
}

const FILTER_KEY = /^filter\[(.+?)\](?:\[[a-z]+\])?$/s;

/** Filters, sorts and searches the endpoint allows; anything else is PUBLIC_QUERY_REFUSED. */
function checkAllowed(opened: Opened, query: Record<string, unknown>): void {
  const { filterable, orderable, searchable } = opened.lists;
  for (const name in query) {
    const value = query[name];
    if (name.startsWith('filter[')) {
      const f = FILTER_KEY.exec(name);
      if (f && !filterable.has(f[1]!)) throw queryRefused(name, 'not-filterable');
    }
    if (name === 'sort' && typeof value === 'string') {
      for (const item of value.split(',')) {
        const col = item.replace(/^[-+]/, '');
        if (col && !orderable.has(col)) throw queryRefused('sort', 'not-orderable');
      }
    }
    if (name === 'search' && searchable.length === 0) throw queryRefused('search', 'not-searchable');
  }
}

function listParams(opened: Opened, query: Record<string, unknown>): ListParams {
  checkAllowed(opened, query);
  let params: ListParams;
  try {
    params = parseListParams(query, { table: opened.table, readable: opened.lists.readableNames, defaultLimit: PAGE.default, maxLimit: PAGE.max });
  } catch (err) {
    if (err instanceof RowInputError) {
      const issue = err.issues[0]!;
      throw queryRefused(issue.path.replace(/^query\./, ''), 'invalid');
    }
    throw err;
  }
  // Newest primary key first unless the caller sorts (seed: "newest primary key first").
  if (params.sort.length === 0) params.sort = [...opened.lists.newestFirst];
  params.filters.push(...opened.scope.filters);
  return params;
}

export interface ListAnswer {
  shape: ResponseShape;
  limit: number;
  rows: Record<string, unknown>[];
  nextCursor: string | null;
}

export async function listRecords(api: PublicApi, call: PublicCall, ref: string, query: Record<string, unknown>): Promise<ListAnswer> {
  const opened = await openEndpoint(api, call, ref, 'GET', 'read');
  const params = listParams(opened, query);
  const shape = opened.endpoint.shape;
  if (shape === 'single') {
    params.limit = 1;
    params.cursor = null;
  }
  const output = params.fields ?? opened.readable;
  const searchable = opened.lists.searchable;
  let page: RowPage;
  try {
    page = await onSource(api, opened, (db, d) => listRows(db, d, opened.table, params, { output, searchable, recordIds: false, cursors: api.cursors }));
  } catch (err) {
    // The cursor is opened with the list: one that this endpoint never handed out.
    if (err instanceof RowInputError) throw queryRefused('cursor', 'invalid');
    throw err;
  }
  // listRows adds the key columns to its rows; only then do they need trimming to `output`.
  const keyAdded = opened.lists.primaryKey.some((c) => !output.includes(c));
  const rows = keyAdded ? page.rows.map((r) => pick(r, output)) : page.rows;
  if (shape === 'single' && rows.length === 0) missing(opened);
  return { shape, limit: params.limit, rows, nextCursor: shape === 'single' ? null : page.nextCursor };
}

export async function getRecord(api: PublicApi, call: PublicCall, ref: string, id: string): Promise<Record<string, unknown>> {
  const opened = await openEndpoint(api, call, ref, 'GET', 'read');
  const key = keyOf(opened, id);
  const columns = opened.table.columns;
  const row = await onSource(api, opened, async (db, d) => {
    const raw = await readInScope(db, d, opened.table, key, opened.scope.filters, columns);
    return raw ? toWireRow(d, columns, raw) : null;
  });
  if (!row) missing(opened);
  windowGuard(opened, row, api.now());
  return pick(row, opened.readable);
}
