import { useCallback, useMemo, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { Column, Table } from './api';
import { parseView, paths, toggleSort, viewQuery, type Filter, type View } from './view';

/** The panel the toolbar or the selection bar has open under them. */
export type GridPanel = 'none' | 'create' | 'bulkEdit';

/**
 * The grid's view as the toolbar, the filter bar and the column headers change it: it lives in
 * the URL (view.ts), so each change navigates. `query` is the data API's query string of the view.
 */
export function useGridToolbar(conn: string, table: Table, base?: string) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const view = useMemo(() => parseView(search), [search]);
  const query = viewQuery(view);
  const setView = useCallback(
    (next: View) => {
      const q = viewQuery(next);
      navigate((base ?? paths.grid(conn, table.ref)) + (q ? `?${q}` : ''));
    },
    [conn, table.ref, base, navigate],
  );
  const [panel, setPanel] = useState<GridPanel>('none');
  return {
    view,
    query,
    setView,
    search: (text: string) => setView({ ...view, search: text }),
    filter: (filters: Filter[]) => setView({ ...view, filters }),
    /** A header's click: ascending → descending → none, on one column. */
    sortBy: (column: Column) => setView(toggleSort(view, column.name)),
    /** The column's `aria-sort`. */
    sortOf: (column: Column): 'ascending' | 'descending' | 'none' => {
      const s = view.sort.find((k) => k.column === column.name);
      return s ? (s.desc ? 'descending' : 'ascending') : 'none';
    },
    panel,
    setPanel,
    /** Opens `which`, or closes it when it is open. */
    togglePanel: (which: Exclude<GridPanel, 'none'>) => setPanel(panel === which ? 'none' : which),
  };
}
