import type { Widget, WidgetQuery } from './api';

/** The dashboard's time ranges (DashboardPageConfig's `defaultRange`), most recent first. */
export const TIME_RANGES = ['24h', '7d', '30d', '90d', '12m', 'all'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

export function timeRangeOf(config: Record<string, unknown>): TimeRange | null {
  const r = config.defaultRange;
  return typeof r === 'string' && (TIME_RANGES as readonly string[]).includes(r) ? (r as TimeRange) : null;
}

/** The start of `range` before `now` (UTC, calendar months for `12m`), or null for all time. */
export function rangeStart(range: TimeRange, now: Date): Date | null {
  const start = new Date(now);
  switch (range) {
    case '24h':
      return new Date(now.getTime() - 24 * 3_600_000);
    case '7d':
    case '30d':
    case '90d':
      return new Date(now.getTime() - Number.parseInt(range, 10) * 86_400_000);
    case '12m':
      start.setUTCFullYear(start.getUTCFullYear() - 1);
      return start;
    case 'all':
      return null;
  }
}

/**
 * The widgets as the dashboard's time range asks: a widget with a time column (its time bucket's
 * or its own range's) reads `[start, now)` of that column, or all of it for `all`; the others are
 * as saved. `null` leaves every widget as saved. `now` is rounded down to the minute so the
 * request (and the server's result cache, WD6) stays the same within a minute.
 */
export function withTimeRange(widgets: readonly Widget[], range: TimeRange | null, now: Date): readonly Widget[] {
  if (range === null) return widgets;
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const start = rangeStart(range, minute);
  return widgets.map((w) => {
    // A stored widget's query is a WidgetQuery (PATCH /pages/{id}/layout checks each one).
    const query = w.query as WidgetQuery;
    const column = query.timeBucket?.column ?? query.range?.column;
    if (!column) return w;
    const { range: _saved, ...rest } = query;
    return { ...w, query: start ? { ...rest, range: { column, from: start.toISOString(), to: minute.toISOString() } } : rest };
  });
}
