import type { ExportFilter, ExportQuery } from '../exports/provides.js';
import type { Page, PagesProvides, SharedView } from '../pages/provides.js';

/** One filter of the data API's grammar as pages store it (PG5, PG7): `value` is the query string's text. */
interface GridFilter {
  column: string;
  op: string;
  value: string;
}

/** What a view report exports (RP3): the export's query, what it was read from, and what it cannot carry. */
export interface ViewTarget {
  connectionId: string;
  table: string;
  query: ExportQuery;
  /** 'view': the asked view; 'default': the page's default view; 'config': the page's own config. */
  from: 'view' | 'default' | 'config';
  view: SharedView | null;
  /** The report named a view the page no longer has (it fell back, RP8). */
  viewGone: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The data API's grid query (sort text, filters, columns, search) → the exports' query: every
 * part carries over (EX9). Filters go by column; a second condition of one operator on one
 * column starts another object of the filter's list form, so all of them hold.
 */
export function gridToExport(q: { sort?: unknown; search?: unknown; filters?: unknown; columns?: unknown }): ExportQuery {
  const query: ExportQuery = {};
  if (Array.isArray(q.columns) && q.columns.length) query.columns = q.columns.map(String);
  if (typeof q.sort === 'string' && q.sort.trim() !== '')
    query.sort = q.sort
      .split(',')
      .map((k) => (k.startsWith('+') ? k.slice(1) : k))
      .filter((k) => k !== '' && k !== '-')
      .join(',');
  if (query.sort === '') delete query.sort;
  if (typeof q.search === 'string' && q.search !== '') query.search = q.search;
  if (Array.isArray(q.filters) && q.filters.length) {
    const parts: Array<Record<string, Record<string, unknown>>> = [];
    for (const f of q.filters as GridFilter[]) {
      let part = parts.find((p) => p[f.column]?.[f.op] === undefined);
      if (!part) parts.push((part = {}));
      const ops = (part[f.column] ??= {});
      const text = String(f.value ?? '');
      if (f.op === 'in') ops.in = text.split(',');
      else if (f.op === 'null') ops.null = text.trim().toLowerCase() === 'true';
      else ops[f.op] = text;
    }
    query.filter = (parts.length === 1 ? parts[0] : parts) as ExportFilter;
  }
  return query;
}

/** A list page's config (PG5: columns [{column}], sort [{column, direction}], filters) as a grid query. */
function configQuery(config: Record<string, unknown>) {
  const columns = Array.isArray(config.columns)
    ? config.columns.map((c) => (isRecord(c) ? c.column : c)).filter((c): c is string => typeof c === 'string')
    : undefined;
  const sort = Array.isArray(config.sort)
    ? config.sort
        .filter(isRecord)
        .map((s) => `${s.direction === 'desc' ? '-' : ''}${String(s.column)}`)
        .join(',')
    : undefined;
  return { columns, sort, filters: config.filters };
}

/**
 * The query a view report of `page` exports now (RP3): the named shared view; without a view id
 * the page's default view, else the page's config; a named view the page no longer has falls back
 * the same way and says so (RP8).
 */
export async function viewTarget(pages: PagesProvides, page: Page, viewId: string | undefined): Promise<ViewTarget> {
  let view: SharedView | null = null;
  let from: ViewTarget['from'] = 'config';
  let viewGone = false;
  if (viewId) {
    view = await pages.views.find(page.id, viewId);
    if (view) from = 'view';
    else viewGone = true;
  }
  if (!view) {
    view = await pages.views.defaultOf(page.id);
    if (view) from = 'default';
  }
  const query = gridToExport(view ? view.query : configQuery(page.config ?? {}));
  return { connectionId: page.connectionId!, table: page.table!, query, from, view, viewGone };
}
