/**
 * The grid's view (sort, search, filters) as the URL query holds it, in the data API's own
 * parameter names and syntax (GET /data/{connectionId}/{table}): `sort=-id,name`, `search=…`,
 * `filter[col][op]=value`. The same string is the list call's query and the export's.
 */
import { FILTER_OPS, type FilterOp } from '../../api/filter-ops';

export { FILTER_OPS, type FilterOp };

export interface Filter {
  column: string;
  op: FilterOp;
  value: string;
}

export interface SortKey {
  column: string;
  desc: boolean;
}

export interface View {
  sort: SortKey[];
  search: string;
  filters: Filter[];
  /** The data API's `fields` (a page's or a saved view's columns); absent: every column. */
  columns?: string[];
}

const FILTER_KEY = /^filter\[([^\]]+)\](?:\[([a-z]+)\])?$/;

/** Parses `location.search` (with or without `?`). Unknown parameters are dropped. */
export function parseView(search: string): View {
  const params = new URLSearchParams(search.startsWith('?') ? search.slice(1) : search);
  const view: View = { sort: [], search: '', filters: [] };
  for (const [key, value] of params) {
    const m = FILTER_KEY.exec(key);
    if (m) {
      const op = (m[2] ?? 'eq') as FilterOp;
      if ((FILTER_OPS as readonly string[]).includes(op)) view.filters.push({ column: m[1]!, op, value });
    } else if (key === 'sort') {
      view.sort = value
        .split(',')
        .filter(Boolean)
        .map((s) => (s.startsWith('-') ? { column: s.slice(1), desc: true } : { column: s, desc: false }));
    } else if (key === 'search') view.search = value;
    else if (key === 'fields') {
      const columns = value.split(',').filter(Boolean);
      if (columns.length) view.columns = columns;
    }
  }
  return view;
}

const enc = (s: string) => encodeURIComponent(s);
/** A query key with its brackets left readable: `filter[price][gte]`. */
const key = (column: string, op: string) => `filter[${enc(column)}][${op}]`;

/** The view as query pairs, in a stable order (sort, search, filters as given). */
export function viewPairs(view: View): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  if (view.sort.length) out.push(['sort', view.sort.map((s) => (s.desc ? '-' : '') + s.column).join(',')]);
  if (view.search.trim()) out.push(['search', view.search]);
  for (const f of view.filters) out.push([`filter[${f.column}][${f.op}]`, f.value]);
  if (view.columns?.length) out.push(['fields', view.columns.join(',')]);
  return out;
}

/** The view as a query string without `?` (empty for the plain table). */
export function viewQuery(view: View, extra: Array<[string, string]> = []): string {
  const pairs = [...viewPairs(view), ...extra];
  return pairs
    .map(([k, v]) => {
      const m = FILTER_KEY.exec(k);
      return `${m ? key(m[1]!, m[2] ?? 'eq') : enc(k)}=${enc(v)}`;
    })
    .join('&');
}

export const sortText = (sort: readonly SortKey[]) => sort.map((s) => (s.desc ? '-' : '') + s.column).join(',');

/** Clicking a header: ascending, then descending, then no sort on that column. */
export function toggleSort(view: View, column: string): View {
  const current = view.sort.find((s) => s.column === column);
  const sort: SortKey[] = !current ? [{ column, desc: false }] : !current.desc ? [{ column, desc: true }] : [];
  return { ...view, sort };
}

/** The paths of the area's screens (fixed: other areas link to them). */
export const paths = {
  grid: (conn: string, table: string) => `/connections/${enc(conn)}/tables/${enc(table)}`,
  row: (conn: string, table: string, recordId: string) => `/connections/${enc(conn)}/tables/${enc(table)}/rows/${enc(recordId)}`,
  import: (conn: string, table: string) => `/connections/${enc(conn)}/tables/${enc(table)}/import`,
  export: (conn: string, table: string, query: string) => `/connections/${enc(conn)}/tables/${enc(table)}/export${query ? `?${query}` : ''}`,
  /** The scheduled report form with this table and the grid's query filled in (areas/reports reads them). */
  newReport: (conn: string, table: string, query: string) => `/reports/new?${new URLSearchParams({ connection: conn, table, ...(query ? { query } : {}) })}`,
};
