import { describe, expect, it } from 'vitest';
import type { Widget } from './api';
import { rangeStart, timeRangeOf, withTimeRange } from './range';

const base = { x: 0, y: 0, w: 3, h: 2, viz: { type: 'number' as const, options: {} } };
const count: Widget = { ...base, id: 'count', title: 'Orders', query: { connectionId: 'c', table: 'orders', metric: { op: 'count' } } };
const perDay: Widget = {
  ...base,
  id: 'day',
  title: 'Per day',
  query: { connectionId: 'c', table: 'orders', metric: { op: 'count' }, timeBucket: { column: 'created_at', unit: 'day' } },
};
const quarter: Widget = {
  ...base,
  id: 'q1',
  title: 'Q1',
  query: { connectionId: 'c', table: 'orders', metric: { op: 'count' }, range: { column: 'paid_at', from: '2025-01-01', to: '2025-04-01' } },
};
const NOW = new Date('2026-03-31T10:15:42.123Z');

describe('the dashboard time range', () => {
  it('reads only a known defaultRange from the config', () => {
    expect(timeRangeOf({ defaultRange: '7d' })).toBe('7d');
    expect(timeRangeOf({ defaultRange: 'yesterday' })).toBeNull();
    expect(timeRangeOf({})).toBeNull();
  });

  it('starts each range where a person counts it', () => {
    expect(rangeStart('24h', NOW)?.toISOString()).toBe('2026-03-30T10:15:42.123Z');
    expect(rangeStart('7d', NOW)?.toISOString()).toBe('2026-03-24T10:15:42.123Z');
    expect(rangeStart('90d', NOW)?.toISOString()).toBe('2025-12-31T10:15:42.123Z');
    expect(rangeStart('12m', NOW)?.toISOString()).toBe('2025-03-31T10:15:42.123Z');
    expect(rangeStart('all', NOW)).toBeNull();
  });

  it('bounds the widgets with a time column to the range, to the minute, and leaves the others as saved', () => {
    const [a, b, c] = withTimeRange([count, perDay, quarter], '30d', NOW);
    expect(a).toBe(count);
    expect(b!.query.range).toEqual({ column: 'created_at', from: '2026-03-01T10:15:00.000Z', to: '2026-03-31T10:15:00.000Z' });
    expect(c!.query.range).toEqual({ column: 'paid_at', from: '2026-03-01T10:15:00.000Z', to: '2026-03-31T10:15:00.000Z' });
    expect(withTimeRange([count, perDay, quarter], null, NOW)).toEqual([count, perDay, quarter]);
    const all = withTimeRange([perDay, quarter], 'all', NOW);
    expect(all.map((w) => w.query.range)).toEqual([undefined, undefined]);
    expect(all[0]!.query.timeBucket).toEqual(perDay.query.timeBucket);
  });
});
