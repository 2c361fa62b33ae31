import { useCallback, useState } from 'react';
import { t } from '../../i18n/t';
import { usePatchRow, type Column, type Table } from './api';
import { draftOf, DraftError, valueOf, type Draft } from './editors';
import type { RowWindow } from './row-window';
import { columnError, writeErrorText } from './shared';

/** The cell being edited: where (row index, its record id, the column), the typed draft and the save's state. */
export interface Editing {
  index: number;
  recordId: string;
  column: string;
  draft: Draft;
  error: string | null;
  saving: boolean;
}

interface Toasts {
  show(text: string, token: string | null, extra?: { error?: boolean }): void;
}

/** Whether a write was refused for want of permission. */
export const isForbidden = (err: unknown) => !!err && typeof err === 'object' && 'status' in err && (err as { status: number }).status === 403;

/**
 * Whether the grid offers edit controls: what the table and the session allow (TableInfo's
 * `canWrite`) until a write is answered 403, which takes them away (a custom role that may not
 * write). `writeFailed` shows a failed write in the toast.
 */
export function useGridWriteAccess(mayWrite: boolean, toasts: Toasts) {
  const [forbidden, setForbidden] = useState(false);
  const forbid = useCallback(() => setForbidden(true), []);
  const writeFailed = useCallback(
    (err: unknown) => {
      if (isForbidden(err)) setForbidden(true);
      toasts.show(writeErrorText(err), null, { error: true });
    },
    [toasts],
  );
  return { canWrite: mayWrite && !forbidden, forbid, writeFailed };
}

/**
 * Editing one cell in place: opened on a cell of an editable column (not the key, not
 * generated), saved with a PATCH of that one value. A refused save keeps the editor open with
 * the typed value and the server's message for the column; `onClosed` puts the focus back on the cell.
 */
export function useGridEditing(
  conn: string,
  table: Table,
  columns: readonly Column[],
  store: RowWindow,
  canWrite: boolean,
  after: { forbid: () => void; toasts: Toasts; onClosed: () => void },
) {
  const [editing, setEditing] = useState<Editing | null>(null);
  const patch = usePatchRow(conn, table.ref);
  const pk = table.primaryKey?.columns ?? [];
  const editable = (c: Column) => canWrite && c.generated === null && !pk.includes(c.name);

  /** Opens the editor on a cell; `colIndex` counts the selection column as 0. */
  const startEdit = (index: number, colIndex: number) => {
    const c = columns[colIndex - 1];
    const entry = store.rowAt(index);
    if (!c || !entry?.id || !editable(c)) return;
    setEditing({ index, recordId: entry.id, column: c.name, draft: draftOf(c, entry.row[c.name]), error: null, saving: false });
  };
  const cancelEdit = () => {
    setEditing(null);
    after.onClosed();
  };
  const changeDraft = (draft: Draft) => setEditing((e) => e && { ...e, draft });
  const saveEdit = async () => {
    if (!editing || editing.saving) return;
    const c = columns.find((x) => x.name === editing.column)!;
    let value: unknown;
    try {
      value = valueOf(c, editing.draft);
    } catch (err) {
      if (err instanceof DraftError) return setEditing({ ...editing, error: err.message });
      throw err;
    }
    setEditing({ ...editing, saving: true, error: null });
    try {
      const out = await patch.mutateAsync({ recordId: editing.recordId, values: { [c.name]: value } });
      store.replace(editing.recordId, out.row, out.recordId);
      setEditing(null);
      after.onClosed();
      after.toasts.show(t('data.toast.updated', { column: c.display.label || c.name }), out.undoToken);
    } catch (err) {
      // The typed value stays: the person fixes it and saves again.
      if (isForbidden(err)) after.forbid();
      setEditing((e) => e && { ...e, saving: false, error: columnError(err, c.name) });
    }
  };

  return { editing, editable, startEdit, cancelEdit, changeDraft, saveEdit };
}
