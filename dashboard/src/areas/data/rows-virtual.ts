import { useCallback, useLayoutEffect, useState, type RefObject } from 'react';

/**
 * Browsers cap an element's height (Chrome near 33.5 million px, Firefox near 17.9 million):
 * past this the body is not made taller, the scroll position is scaled instead.
 */
export const MAX_BODY_PX = 15_000_000;

export interface VirtualRow {
  index: number;
  /** Top of the row inside the body, in px. */
  start: number;
}

/**
 * Which rows of a fixed-height list are in view of `scroller` (its sticky header, `.data-head`,
 * subtracted), for any number of rows: when `count × rowHeight` exceeds MAX_BODY_PX the body is
 * MAX_BODY_PX tall and a scroll position stands for a proportionally larger one, so a
 * 1,000,000-row table reaches its last row in every browser while rows keep their height.
 */
export function useVirtualRows(scroller: RefObject<HTMLElement | null>, mounted: boolean, count: number, rowHeight: number, overscan = 8) {
  const [scrollTop, setScrollTop] = useState(0);
  const [view, setView] = useState({ height: 600, header: 0 });
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setView({ height: el.clientHeight, header: el.querySelector<HTMLElement>('.data-head')?.offsetHeight ?? 0 });
    const onScroll = () => setScrollTop(el.scrollTop);
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    el.addEventListener('scroll', onScroll, { passive: true });
    measure();
    onScroll();
    return () => {
      observer.disconnect();
      el.removeEventListener('scroll', onScroll);
    };
  }, [scroller, mounted]);

  const avail = Math.max(rowHeight, view.height - view.header);
  const totalPx = count * rowHeight;
  const bodyPx = Math.min(totalPx, MAX_BODY_PX);
  const scale = bodyPx < totalPx && bodyPx > avail ? (totalPx - avail) / (bodyPx - avail) : 1;
  const offset = Math.min(Math.max(0, totalPx - avail), scrollTop * scale);
  const first = Math.max(0, Math.floor(offset / rowHeight) - overscan);
  const last = Math.min(count - 1, Math.floor((offset + avail) / rowHeight) + overscan);
  const rows: VirtualRow[] = [];
  for (let i = first; i <= last; i++) rows.push({ index: i, start: i * rowHeight - offset + scrollTop });

  /** Scrolls as little as needed for row `index` to be wholly in view. */
  const scrollToIndex = useCallback(
    (index: number) => {
      const el = scroller.current;
      if (!el) return;
      const top = index * rowHeight;
      const current = el.scrollTop * scale;
      let target: number | null = null;
      if (top < current) target = top;
      else if (top + rowHeight > current + avail) target = top + rowHeight - avail;
      if (target !== null) el.scrollTop = Math.ceil(target / scale);
    },
    [scroller, rowHeight, scale, avail],
  );

  return { rows, bodyHeight: bodyPx, scrollToIndex, first: rows[0]?.index ?? 0, last: rows[rows.length - 1]?.index ?? 0 };
}
