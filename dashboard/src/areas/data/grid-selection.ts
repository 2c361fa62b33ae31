import { useEffect, useState } from 'react';
import { t } from '../../i18n/t';
import { useBulkRows, type Row, type Table } from './api';
import type { RowWindow } from './row-window';

interface Toasts {
  show(text: string, token: string | null): void;
}

/**
 * The rows ticked in the grid (by record id, with the row as loaded, which a duplicate copies),
 * emptied when the view changes, and the bulk actions on them: delete and duplicate (one bulk
 * request each, one undo token). `busy` while one of those runs; `onDeleted` after a delete (the
 * buttons that had the focus go away with the selection: the caller puts it on the grid).
 */
export function useGridSelection(
  conn: string,
  table: Table,
  store: RowWindow,
  query: string,
  after: { reload: () => void; toasts: Toasts; writeFailed: (err: unknown) => void; onDeleted: () => void },
) {
  const [selected, setSelected] = useState<Map<string, Row>>(new Map());
  // The loaded rows' version when "select all" ticked them: the header's box stays ticked while no
  // row was unticked and no row loaded, let go of or removed since. Asking it is O(1): no render
  // walks the loaded rows (up to MAX_ROWS) to know whether each is selected.
  const [allAt, setAllAt] = useState<number | null>(null);
  useEffect(() => {
    setSelected(new Map());
    setAllAt(null);
  }, [query]);
  const write = useBulkRows(conn, table.ref);

  const toggle = (id: string, row: Row) => {
    setAllAt(null);
    setSelected((s) => {
      const next = new Map(s);
      if (next.has(id)) next.delete(id);
      else next.set(id, row);
      return next;
    });
  };
  const clear = () => {
    setAllAt(null);
    setSelected(new Map());
  };
  const allSelected = allAt !== null && allAt === store.loadedVersion && selected.size > 0;
  /** The header's box: every loaded row (one walk over them, on the click), or none when they all are. */
  const selectAll = () => {
    if (allSelected) return clear();
    const all = new Map<string, Row>();
    for (const r of store.loaded()) if (r.id !== null) all.set(r.id, r.row);
    setSelected(all);
    setAllAt(store.loadedVersion);
  };

  const deleteSelected = async () => {
    const ids = [...selected.keys()];
    try {
      const out = await write.mutateAsync(ids.map((recordId) => ({ op: 'delete' as const, recordId })));
      store.remove(ids);
      clear();
      after.toasts.show(t('data.toast.deleted', { count: ids.length }), out.undoToken);
      after.onDeleted();
    } catch (err) {
      after.writeFailed(err);
    }
  };
  const duplicateSelected = async () => {
    const pk = table.primaryKey?.columns ?? [];
    const copyable = table.columns.filter((c) => c.generated === null && !c.autoIncrement && !(pk.includes(c.name) && c.default !== null));
    try {
      const out = await write.mutateAsync(
        [...selected.values()].map((row) => ({
          op: 'create' as const,
          values: Object.fromEntries(copyable.filter((c) => c.name in row).map((c) => [c.name, row[c.name]])),
        })),
      );
      clear();
      after.reload();
      after.toasts.show(t('data.toast.duplicated', { count: out.results.length }), out.undoToken);
    } catch (err) {
      after.writeFailed(err);
    }
  };

  return { selected, toggle, clear, allSelected, selectAll, busy: write.isPending, deleteSelected, duplicateSelected };
}
