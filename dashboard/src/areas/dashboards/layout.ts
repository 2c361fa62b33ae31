import type { Widget } from './api';

/** The grid's columns and its lowest row (PG6: x + w ≤ 12, y + h ≤ 1000). */
export const COLUMNS = 12;
export const MAX_ROWS = 1000;

export type Box = Pick<Widget, 'x' | 'y' | 'w' | 'h'>;

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Whether `box` fits on the grid and touches no other widget (the server's `layout-bounds` and `layout-overlap`). */
export function fits(widgets: readonly Widget[], id: string, box: Box): boolean {
  if (box.x < 0 || box.y < 0 || box.w < 1 || box.h < 1 || box.x + box.w > COLUMNS || box.y + box.h > MAX_ROWS) return false;
  return widgets.every((w) => w.id === id || !overlaps(w, box));
}

/** The widgets with one of them at `box` when it fits there, else null. */
export function place(widgets: readonly Widget[], id: string, box: Box): Widget[] | null {
  if (!fits(widgets, id, box)) return null;
  return widgets.map((w) => (w.id === id ? { ...w, ...box } : w));
}

/** The first free place for a new widget of w × h: reading order, top to bottom. */
export function freeSpot(widgets: readonly Widget[], w: number, h: number): Box {
  for (let y = 0; y < MAX_ROWS; y++) for (let x = 0; x + w <= COLUMNS; x++) if (fits(widgets, '', { x, y, w, h })) return { x, y, w, h };
  return { x: 0, y: 0, w, h };
}

/** Reading order (row, then column): the order of the widgets in the document and on a phone. */
export const byPosition = (a: Box, b: Box) => a.y - b.y || a.x - b.x;

/** A new widget's id: short, unique in the layout (1–64 characters). */
export function newId(widgets: readonly Widget[]): string {
  for (let i = widgets.length + 1; ; i++) if (!widgets.some((w) => w.id === `w${i}`)) return `w${i}`;
}
