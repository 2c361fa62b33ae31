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
 * request each, one undo token). `busy` while one of those runs.
 */
export function useGridSelection(
  conn: string,
  table: Table,
  store: RowWindow,
  query: string,
  after: { reload: () => void; toasts: Toasts; writeFailed: (err: unknown) => void },
) {
  const [selected, setSelected] = useState<Map<string, Row>>(new Map());
  useEffect(() => setSelected(new Map()), [query]);
  const write = useBulkRows(conn, table.ref);

  const toggle = (id: string, row: Row) =>
    setSelected((s) => {
      const next = new Map(s);
      if (next.has(id)) next.delete(id);
      else next.set(id, row);
      return next;
    });
  const clear = () => setSelected(new Map());
  const loadedIds = [...store.loaded()].filter((r) => r.id !== null);
  const allSelected = loadedIds.length > 0 && loadedIds.every((r) => selected.has(r.id!));
  /** The header's box: every loaded row, or none when they all are. */
  const selectAll = () => setSelected(allSelected ? new Map() : new Map(loadedIds.map((r) => [r.id!, r.row])));

  const deleteSelected = async () => {
    const ids = [...selected.keys()];
    try {
      const out = await write.mutateAsync(ids.map((recordId) => ({ op: 'delete' as const, recordId })));
      store.remove(ids);
      clear();
      after.toasts.show(t('data.toast.deleted', { count: ids.length }), out.undoToken);
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
