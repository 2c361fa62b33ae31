import { useCallback, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';

/**
 * Browsers cap an element's height (Chrome near 33.5 million px, Firefox near 17.9 million):
 * past this the body is not made taller, the scroll position is scaled instead.
 */
export const MAX_BODY_PX = 15_000_000;

/** Rows are drawn in blocks of this many: the drawn range, and so React's work, changes once a block, not once a row. */
const BLOCK = 16;
/** Rows are placed relative to an anchor that moves this rarely (a row's `top` stays the same while it is drawn). */
const ANCHOR_SPAN = 10_000;

export interface VirtualRow {
  index: number;
  /** Top of the row inside the rows' layer, in px (fixed while the row is drawn). */
  start: number;
}

interface Geometry {
  avail: number;
  totalPx: number;
  scale: number;
}

function geometryOf(height: number, header: number, count: number, rowHeight: number): Geometry & { bodyPx: number } {
  const avail = Math.max(rowHeight, height - header);
  const totalPx = count * rowHeight;
  const bodyPx = Math.min(totalPx, MAX_BODY_PX);
  const scale = bodyPx < totalPx && bodyPx > avail ? (totalPx - avail) / (bodyPx - avail) : 1;
  return { avail, totalPx, bodyPx, scale };
}

/** The position in the whole list (px) that a scroll position stands for. */
const offsetOf = (g: Geometry, scrollTop: number) => Math.min(Math.max(0, g.totalPx - g.avail), scrollTop * g.scale);

/**
 * Which rows of a fixed-height list are in view of `scroller` (its sticky header, `.data-head`,
 * subtracted), for any number of rows: when `count × rowHeight` exceeds MAX_BODY_PX the body is
 * MAX_BODY_PX tall and a scroll position stands for a proportionally larger one, so a
 * 1,000,000-row table reaches its last row in every browser while rows keep their height.
 *
 * Scrolling does not render the caller on every scroll event: the drawn range moves in blocks
 * of BLOCK rows (with `overscan` rows beyond the viewport), so a row once drawn keeps its props
 * and a memoised row is not drawn again; the rows' layer (`layerRef`) is moved by the scroll
 * handler itself where the position is scaled. `direction` is the way the person last scrolled
 * (1 down, -1 up), for fetching ahead; `topRow` (with `subscribeTop`) the first row in view,
 * for a position indicator that alone re-renders as the rows pass.
 */
export function useVirtualRows(scroller: RefObject<HTMLElement | null>, mounted: boolean, count: number, rowHeight: number, overscan = 8) {
  const [view, setView] = useState({ height: 600, header: 0 });
  const geometry = useMemo(() => geometryOf(view.height, view.header, count, rowHeight), [view, count, rowHeight]);
  const geometryRef = useRef(geometry);
  geometryRef.current = geometry;
  const [range, setRange] = useState({ first: 0, last: -1, direction: 1 });
  const layerRef = useRef<HTMLDivElement>(null);
  const top = useRef({ row: 0, listeners: new Set<() => void>() });
  const lastScroll = useRef(0);

  /** The drawn range and the layer's shift for the scroller's position now; sets state only when the range changes. */
  const place = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const g = geometryRef.current;
    const rowsTotal = Math.round(g.totalPx / rowHeight);
    const scrollTop = el.scrollTop;
    const offset = offsetOf(g, scrollTop);
    const direction = scrollTop > lastScroll.current ? 1 : scrollTop < lastScroll.current ? -1 : 0;
    lastScroll.current = scrollTop;
    const topRow = Math.min(Math.max(0, rowsTotal - 1), Math.floor(offset / rowHeight));
    if (topRow !== top.current.row) {
      top.current.row = topRow;
      for (const l of top.current.listeners) l();
    }
    const first = Math.max(0, Math.floor((topRow - overscan) / BLOCK) * BLOCK);
    const last = Math.min(rowsTotal - 1, Math.ceil((Math.floor((offset + g.avail) / rowHeight) + overscan + 1) / BLOCK) * BLOCK - 1);
    setRange((r) => (r.first === first && r.last === last ? r : { first, last, direction: direction || r.direction }));
    const layer = layerRef.current;
    if (layer) {
      const anchor = Math.floor(first / ANCHOR_SPAN) * ANCHOR_SPAN;
      layer.style.transform = `translateY(${anchor * rowHeight - offset + scrollTop}px)`;
    }
  }, [scroller, rowHeight, overscan]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setView({ height: el.clientHeight, header: el.querySelector<HTMLElement>('.data-head')?.offsetHeight ?? 0 });
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    el.addEventListener('scroll', place, { passive: true });
    measure();
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', place);
    };
  }, [scroller, mounted, place]);
  // The size of the list or of the viewport changed: the range and the layer follow.
  useLayoutEffect(place, [place, geometry, mounted]);

  const { first, last, direction } = range;
  const anchor = Math.floor(first / ANCHOR_SPAN) * ANCHOR_SPAN;
  const rows = useMemo(() => {
    const out: VirtualRow[] = [];
    for (let i = first; i <= Math.min(last, count - 1); i++) out.push({ index: i, start: (i - anchor) * rowHeight });
    return out;
  }, [first, last, count, anchor, rowHeight]);

  /** Scrolls as little as needed for row `index` to be wholly in view (`align: 'start'`: to the top). */
  const scrollToIndex = useCallback(
    (index: number, align: 'nearest' | 'start' = 'nearest') => {
      const el = scroller.current;
      if (!el) return;
      const { scale, avail } = geometryRef.current;
      const top = index * rowHeight;
      const current = el.scrollTop * scale;
      let target: number | null = null;
      if (align === 'start' || top < current) target = top;
      else if (top + rowHeight > current + avail) target = top + rowHeight - avail;
      if (target !== null) el.scrollTop = Math.ceil(target / scale);
      place();
    },
    [scroller, rowHeight, place],
  );

  const subscribeTop = useCallback((listener: () => void) => {
    top.current.listeners.add(listener);
    return () => void top.current.listeners.delete(listener);
  }, []);
  const topRow = useCallback(() => top.current.row, []);

  return {
    rows,
    bodyHeight: geometry.bodyPx,
    scrollToIndex,
    first: rows[0]?.index ?? 0,
    last: rows[rows.length - 1]?.index ?? 0,
    direction,
    layerRef,
    subscribeTop,
    topRow,
  };
}
