import { useCallback, useEffect, useMemo, useRef } from 'react';
import { useLiveEvents } from '../../live/events';
import { getRow, useRowWindow, visibleColumns, type OpResult, type Table } from './api';
import { PAGE, seekable } from './row-window';
import { useVirtualRows } from './rows-virtual';
import { viewQuery, type View } from './view';

/** A row's height in px (the virtual rows and PageUp/PageDown count with it). */
export const ROW_H = 34;

/**
 * The rows of the grid's view: its RowWindow (useRowWindow in api.ts), the rows in view of the
 * scroller and the pages around them, and keeping them current. `columns` are those a person
 * sees, known once the first row is (a column the API leaves out of the rows is not shown).
 */
export function useGridPaging(conn: string, table: Table, view: View, query: string) {
  // A far jump seeks on the first sort key (the primary key's first column without a sort).
  const pk = table.primaryKey?.columns ?? [];
  const seekColumn = view.sort[0] ? table.columns.find((c) => c.name === view.sort[0]!.column) : table.columns.find((c) => c.name === pk[0]);
  const seek = pk.length > 0 && seekable(seekColumn) ? { column: seekColumn!, desc: view.sort[0]?.desc ?? false } : null;
  const reversed = useMemo(() => {
    if (!seek) return null;
    const reversedSort = view.sort.length ? view.sort.map((s) => ({ ...s, desc: !s.desc })) : pk.map((column) => ({ column, desc: true }));
    return viewQuery({ ...view, sort: reversedSort });
    // Read only when the window is made again, which the query decides.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conn, table.ref, query]);
  const store = useRowWindow(conn, table.ref, query, reversed, seek);

  const sample = store.rowAt(0)?.row;
  // With `fields` (a page's columns), in their order; the primary key the API always answers comes first.
  const order = view.columns?.join(',');
  const columns = useMemo(() => {
    const shown = visibleColumns(table, sample);
    const at = view.columns ?? [];
    return at.length ? [...shown].sort((a, b) => at.indexOf(a.name) - at.indexOf(b.name)) : shown;
  }, [table, sample !== undefined, order]); // eslint-disable-line react-hooks/exhaustive-deps

  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualRows(scroller, store.ready, store.total, ROW_H);
  const { getRange, subscribeRange } = virtual;
  // Rows are fetched a page ahead in the direction of the scroll, a few behind it: when the drawn
  // range moves (told by the scroll, not through a render of the grid) and when rows arrive.
  useEffect(() => {
    const ensure = () => {
      const { first, last, direction } = getRange();
      const ahead = PAGE;
      const behind = PAGE / 8;
      store.ensure(Math.max(0, first - (direction < 0 ? ahead : behind)), Math.max(first, last) + (direction < 0 ? behind : ahead));
    };
    ensure();
    return subscribeRange(ensure);
  }, [store, getRange, subscribeRange, store.version]);

  const reload = useCallback(() => void store.load(), [store]);
  /** A write's (or an undo's) rows as they are now: a create reloads the view, the others replace or drop rows. */
  const applyResults = useCallback(
    (results: OpResult[]) => {
      if (results.some((r) => r.op === 'create')) return reload();
      for (const r of results) {
        if (r.op === 'update' && r.row) store.replace(r.recordId, r.row);
        if (r.op === 'delete') store.remove([r.recordId]);
      }
    },
    [store, reload],
  );

  // Rows written elsewhere: the ones on screen are read again; new rows reload the view.
  const refresh = useCallback(
    async (ids: readonly string[], op: string) => {
      const loaded = ids.filter((id) => store.has(id));
      if (op === 'delete') return store.remove(loaded);
      // A bulk write or an undo may have created, changed or deleted its rows: reading them one by
      // one would ask for rows that are gone. Only a plain update is read row by row.
      if (op !== 'update') return reload();
      for (const id of loaded.slice(0, 50)) {
        try {
          const { row, recordId } = await getRow(conn, table.ref, id);
          store.replace(id, row, recordId);
        } catch {
          store.remove([id]);
        }
      }
    },
    [store, conn, table.ref, reload],
  );
  useLiveEvents(['data.changed'], (event) => {
    const d = event.data as { connectionId?: string; table?: string; recordIds?: string[]; op?: string };
    if (d.connectionId === conn && d.table === table.ref) void refresh(d.recordIds ?? [], d.op ?? 'update');
  });
  // Coming back to the tab reads the rows on screen again (and covers a live channel that was down).
  useEffect(() => {
    const onFocus = () => {
      if (document.visibilityState !== 'visible') return;
      const ids: string[] = [];
      const { first, last } = getRange();
      for (let i = first; i <= last; i++) {
        const id = store.rowAt(i)?.id;
        if (id) ids.push(id);
      }
      void refresh(ids, 'update');
    };
    window.addEventListener('focus', onFocus);
    document.addEventListener('visibilitychange', onFocus);
    return () => {
      window.removeEventListener('focus', onFocus);
      document.removeEventListener('visibilitychange', onFocus);
    };
  }, [store, getRange, refresh]);

  return { store, columns, scroller, virtual, reload, applyResults };
}
