import { useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { useLocation } from 'wouter';
import type { Row } from './api';
import { ROW_H } from './grid-paging';
import type { RowWindow } from './row-window';
import { paths } from './view';

/**
 * The cell with the keyboard focus (the grid's one tab stop; column 0 is the selection column).
 * After `focusActive()` the cell is focused once it is drawn: a far row is drawn only once the
 * scroll reaches it, so each render tries again until it is there.
 */
export function useActiveCell(scroller: RefObject<HTMLDivElement | null>) {
  const [active, setActive] = useState({ row: 0, col: 0 });
  const focusCell = useRef(false);
  const activeNow = useRef(active);
  activeNow.current = active;
  /** Focuses the active cell when it was asked to and is drawn; after each drawing of the grid and of its rows (which a scroll draws alone). */
  const afterDraw = useRef(() => {
    if (!focusCell.current) return;
    const { row, col } = activeNow.current;
    const cell = scroller.current?.querySelector<HTMLElement>(`[data-cell="${row}:${col}"]`);
    if (!cell) return;
    focusCell.current = false;
    cell.focus({ preventScroll: false });
  }).current;
  useEffect(afterDraw);
  const focusActive = () => {
    focusCell.current = true;
  };
  return { active, setActive, focusActive, afterDraw };
}

/**
 * The grid's keys (the ARIA grid pattern): arrows, PageUp/PageDown, Home/End (with Ctrl: the
 * first or last cell) move the active cell; Enter or F2 edits it; on the selection column Enter
 * opens the row and Space ticks it. Keys typed in a cell's editor are the editor's.
 */
export function useGridKeyboard(props: {
  conn: string;
  tableRef: string;
  store: RowWindow;
  scroller: RefObject<HTMLDivElement | null>;
  scrollToIndex: (index: number) => void;
  cell: ReturnType<typeof useActiveCell>;
  colCount: number;
  canWrite: boolean;
  editing: boolean;
  startEdit: (index: number, colIndex: number) => void;
  toggle: (id: string, row: Row) => void;
}) {
  const { store, cell, colCount } = props;
  const { active } = cell;
  const [, navigate] = useLocation();
  const move = (row: number, col: number) => {
    const r = Math.max(0, Math.min(store.total - 1, row));
    const c = Math.max(0, Math.min(colCount - 1, col));
    cell.setActive({ row: r, col: c });
    props.scrollToIndex(r);
    cell.focusActive();
  };
  return (e: KeyboardEvent<HTMLDivElement>) => {
    if (props.editing || (e.target as HTMLElement).closest('.data-cell-editor')) return;
    const page = Math.max(1, Math.floor((props.scroller.current?.clientHeight ?? 400) / ROW_H) - 1);
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(active.row + 1, active.col),
      ArrowUp: () => move(active.row - 1, active.col),
      ArrowRight: () => move(active.row, active.col + 1),
      ArrowLeft: () => move(active.row, active.col - 1),
      PageDown: () => move(active.row + page, active.col),
      PageUp: () => move(active.row - page, active.col),
      Home: () => (e.ctrlKey ? move(0, 0) : move(active.row, 0)),
      End: () => (e.ctrlKey ? move(store.total - 1, colCount - 1) : move(active.row, colCount - 1)),
      Enter: () => props.startEdit(active.row, active.col),
      F2: () => props.startEdit(active.row, active.col),
    };
    const entry = store.rowAt(active.row);
    if (active.col === 0 && entry?.id && (e.key === ' ' || e.key === 'Enter')) {
      e.preventDefault();
      if (e.key === 'Enter') navigate(paths.row(props.conn, props.tableRef, entry.id));
      else if (props.canWrite) props.toggle(entry.id, entry.row);
      return;
    }
    const action = keys[e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  };
}
