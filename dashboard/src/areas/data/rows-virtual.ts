import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore, type RefObject } from 'react';

/**
 * Browsers cap an element's height (Chrome near 33.5 million px, Firefox near 17.9 million):
 * past this the body is not made taller, it scrolls in pages instead (Geometry).
 */
export const MAX_BODY_PX = 15_000_000;

/** Rows are drawn in blocks of this many: the drawn range, and so React's work, changes once a block, not once a row. */
const BLOCK = 16;
/** The first row in view is told to its listeners (a position indicator) at most this often while scrolling. */
const TOP_EVERY_MS = 250;

/** The rows drawn (indexes, inclusive) and the way the person last scrolled (1 down, -1 up). */
export interface Range {
  first: number;
  last: number;
  direction: number;
}

export interface VirtualRow {
  index: number;
  /**
   * The row's slot: its index modulo the drawn range's constant length, a key under which the
   * rows leaving the range at one end are drawn again as the rows entering it at the other (their
   * elements updated, not removed and created: decisions DB57).
   */
  slot: number;
}

/**
 * The list's height and, past MAX_BODY_PX, its pages: the list (`totalPx`) is cut into pages of
 * `pagePx`, and a scroll position inside page p stands for the list's position `scrollTop + p ×
 * jumpPx`. Inside a page a scroll moves the rows 1:1 with the scrollbar (the browser scrolls them,
 * no style is written per frame); crossing into the next page moves the scroll position back by
 * `jumpPx` while the rows stay where they are, and a far jump (a drag of the scrollbar) lands
 * where the scrollbar stands in proportion (SlickGrid's "virtual pages").
 */
interface Geometry {
  avail: number;
  totalPx: number;
  bodyPx: number;
  pagePx: number;
  pages: number;
  jumpPx: number;
}

function geometryOf(height: number, header: number, count: number, rowHeight: number): Geometry {
  const avail = Math.max(rowHeight, height - header);
  const totalPx = count * rowHeight;
  const bodyPx = Math.min(totalPx, MAX_BODY_PX);
  if (bodyPx >= totalPx || bodyPx <= avail) return { avail, totalPx, bodyPx, pagePx: Math.max(1, totalPx), pages: 1, jumpPx: 0 };
  const pagePx = MAX_BODY_PX / 100;
  // The last page starts where its end is still reachable (list end − viewport).
  const pages = Math.floor((totalPx - avail) / pagePx) + 1;
  return { avail, totalPx, bodyPx, pagePx, pages, jumpPx: pages > 1 ? (totalPx - bodyPx) / (pages - 1) : 0 };
}

/**
 * How many rows are drawn, in whole blocks: the first drawn row is up to `overscan` + BLOCK − 1
 * above the first in view, and the last must be `overscan` below the last in view.
 */
const spanOf = (g: Geometry, rowHeight: number, overscan: number) => Math.ceil((Math.ceil(g.avail / rowHeight) + 2 * overscan + BLOCK) / BLOCK) * BLOCK;

const pageAt = (g: Geometry, listPx: number) => Math.min(g.pages - 1, Math.max(0, Math.floor(listPx / g.pagePx)));

/**
 * Which rows of a fixed-height list are in view of `scroller` (its sticky header, `.data-head`,
 * subtracted), for any number of rows: when `count × rowHeight` exceeds MAX_BODY_PX the body is
 * MAX_BODY_PX tall and scrolls in pages (Geometry), so a 1,000,000-row table reaches its last row
 * in every browser while rows keep their height and a scroll moves them at its own speed.
 *
 * Scrolling never renders the caller: the drawn range moves in blocks of BLOCK rows (with
 * `overscan` rows beyond the viewport) and is told to its listeners (`subscribeRange`,
 * `getRange`; useVirtualItems draws from it), and the rows sit one under the other in a layer
 * (`layerRef`) placed at the first drawn row, so a row once drawn keeps its props and a memoised
 * row is not drawn again. The range's `direction` is the way the person last scrolled, for
 * fetching ahead; `topRow` (with `subscribeTop`) the first row in view, for a position indicator
 * that alone re-renders as the rows pass.
 */
export function useVirtualRows(scroller: RefObject<HTMLElement | null>, mounted: boolean, count: number, rowHeight: number, overscan = 8) {
  const [view, setView] = useState({ height: 600, header: 0 });
  const geometry = useMemo(() => geometryOf(view.height, view.header, count, rowHeight), [view, count, rowHeight]);
  const geometryRef = useRef(geometry);
  geometryRef.current = geometry;
  // The drawn range is not the caller's state: a scroll that moves it re-renders only the rows'
  // component (useVirtualItems), not the screen around them (decisions DB57).
  const range = useRef<Range>({ first: 0, last: -1, direction: 1 });
  const rangeListeners = useRef(new Set<() => void>());
  const layerRef = useRef<HTMLDivElement>(null);
  const top = useRef({ row: 0, listeners: new Set<() => void>(), told: 0, timer: null as number | null });
  const tellTop = useCallback(() => {
    top.current.timer = null;
    top.current.told = performance.now();
    for (const l of top.current.listeners) l();
  }, []);
  const lastScroll = useRef(0);
  /** The list's position minus the scroll position (the page's jumps so far), px. */
  const shift = useRef(0);
  const layerAt = useRef<number | null>(null);

  /** The drawn range and the layer's place for the scroller's position now; sets state only when the range changes. */
  const place = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const g = geometryRef.current;
    const rowsTotal = Math.round(g.totalPx / rowHeight);
    let scrollTop = el.scrollTop;
    const delta = scrollTop - lastScroll.current;
    const direction = delta > 0 ? 1 : delta < 0 ? -1 : 0;
    if (g.pages <= 1) shift.current = 0;
    else if (Math.abs(delta) > 2 * g.avail) {
      // A far jump: the page where the scrollbar stands in proportion.
      const page = pageAt(g, (scrollTop * (g.totalPx - g.avail)) / Math.max(1, g.bodyPx - g.avail));
      shift.current = Math.round(page * g.jumpPx);
    } else {
      // A scroll: the rows move with it; into another page, the scroll position takes that page's shift.
      const listPx = Math.min(Math.max(0, scrollTop + shift.current), g.totalPx - g.avail);
      const next = Math.round(pageAt(g, listPx) * g.jumpPx);
      if (next !== shift.current) {
        shift.current = next;
        scrollTop = Math.round(listPx - next);
        el.scrollTop = scrollTop;
      }
    }
    lastScroll.current = scrollTop;
    const offset = Math.min(Math.max(0, scrollTop + shift.current), Math.max(0, g.totalPx - g.avail));
    const topRow = Math.min(Math.max(0, rowsTotal - 1), Math.floor(offset / rowHeight));
    if (topRow !== top.current.row) {
      top.current.row = topRow;
      // At most every TOP_EVERY_MS while scrolling (a person reads it when the rows stop), and once after.
      const now = performance.now();
      if (top.current.timer === null && now - top.current.told >= TOP_EVERY_MS) tellTop();
      else if (top.current.timer === null) top.current.timer = window.setTimeout(tellTop, TOP_EVERY_MS);
    }
    const first = Math.max(0, Math.floor((topRow - overscan) / BLOCK) * BLOCK);
    // Always the same number of rows (slots), enough for the viewport and the overscan on both sides whatever the alignment.
    const last = Math.min(rowsTotal - 1, first + spanOf(g, rowHeight, overscan) - 1);
    const r = range.current;
    if (r.first !== first || r.last !== last) {
      range.current = { first, last, direction: direction || r.direction };
      for (const l of rangeListeners.current) l();
    }
    // The layer stands where the first drawn row is, in the body's own px (written only when that changes).
    const layer = layerRef.current;
    const at = first * rowHeight - shift.current;
    if (layer && layerAt.current !== at) {
      layerAt.current = at;
      layer.style.transform = `translateY(${at}px)`;
    }
  }, [scroller, rowHeight, overscan, tellTop]);

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
  useEffect(() => () => window.clearTimeout(top.current.timer ?? undefined), []);
  // The size of the list or of the viewport changed: the range and the layer follow.
  useLayoutEffect(() => {
    layerAt.current = null;
    place();
  }, [place, geometry, mounted]);

  const span = spanOf(geometry, rowHeight, overscan);

  /** Scrolls as little as needed for row `index` to be wholly in view (`align: 'start'`: to the top). */
  const scrollToIndex = useCallback(
    (index: number, align: 'nearest' | 'start' = 'nearest') => {
      const el = scroller.current;
      if (!el) return;
      const g = geometryRef.current;
      const top = index * rowHeight;
      const current = el.scrollTop + shift.current;
      let target: number | null = null;
      if (align === 'start' || top < current) target = top;
      else if (top + rowHeight > current + g.avail) target = top + rowHeight - g.avail;
      if (target !== null) {
        target = Math.min(Math.max(0, target), Math.max(0, g.totalPx - g.avail));
        shift.current = g.pages > 1 ? Math.round(pageAt(g, target) * g.jumpPx) : 0;
        el.scrollTop = target - shift.current;
        // Read back: the scroll event that follows sees no move (not a far jump).
        lastScroll.current = el.scrollTop;
      }
      place();
    },
    [scroller, rowHeight, place],
  );

  const subscribeTop = useCallback((listener: () => void) => {
    top.current.listeners.add(listener);
    return () => void top.current.listeners.delete(listener);
  }, []);
  const topRow = useCallback(() => top.current.row, []);
  const subscribeRange = useCallback((listener: () => void) => {
    rangeListeners.current.add(listener);
    return () => void rangeListeners.current.delete(listener);
  }, []);
  /** The drawn range now: the same object until it changes (a snapshot for useSyncExternalStore). */
  const getRange = useCallback(() => range.current, []);

  return {
    bodyHeight: geometry.bodyPx,
    scrollToIndex,
    count,
    span,
    getRange,
    subscribeRange,
    layerRef,
    subscribeTop,
    topRow,
  };
}

export type VirtualRows = ReturnType<typeof useVirtualRows>;

/**
 * The rows to draw, each with its slot, **in slot order**: a row that leaves the range at one end
 * and is drawn again at the other keeps its place among its siblings, so the browser only writes
 * its new text (no element is moved, which would build its boxes and styles anew). The caller
 * shows them in index order with CSS (`order: index` in a flex column, whose `reading-flow` gives
 * assistive technology and focus the same order; decisions DB57). Re-renders its component
 * (alone) when the drawn range moves.
 */
export function useVirtualItems(virtual: Pick<VirtualRows, 'subscribeRange' | 'getRange' | 'count' | 'span'>): VirtualRow[] {
  const { first, last } = useSyncExternalStore(virtual.subscribeRange, virtual.getRange);
  const { count, span } = virtual;
  return useMemo(() => {
    const out: VirtualRow[] = [];
    // A range set for another geometry (the viewport was just measured) may be longer than the span: its own length keeps the slots apart.
    const slots = Math.max(span, last - first + 1);
    for (let i = first; i <= Math.min(last, count - 1); i++) out.push({ index: i, slot: i % slots });
    return out.sort((a, b) => a.slot - b.slot);
  }, [first, last, count, span]);
}
