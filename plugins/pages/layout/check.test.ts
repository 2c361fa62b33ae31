import { describe, expect, it } from 'vitest';
import { checkGrid } from './check.js';
import type { Widget } from './schemas.js';

const w = (id: string, x: number, y: number, wd: number, h: number): Widget => ({
  id,
  x,
  y,
  w: wd,
  h,
  title: id,
  query: {},
  viz: { type: 'number', options: {} },
});
const codes = (widgets: Widget[]) => checkGrid(widgets).map((i) => `${i.path}:${i.code}`);

describe('the dashboard grid', () => {
  it('takes widgets side by side, edge to edge, across all 12 columns', () => {
    expect(codes([w('a', 0, 0, 6, 2), w('b', 6, 0, 6, 2), w('c', 0, 2, 12, 1)])).toEqual([]);
  });

  it('refuses a widget past the right edge, above or left of the grid, or without size', () => {
    expect(codes([w('a', 11, 0, 2, 1), w('b', 0, -1, 1, 1), w('c', -1, 5, 1, 1), w('d', 0, 9, 0, 1), w('e', 0, 9, 1, 0)])).toEqual([
      'body.widgets.0:layout-bounds',
      'body.widgets.1:layout-bounds',
      'body.widgets.2:layout-bounds',
      'body.widgets.3:layout-bounds',
      'body.widgets.4:layout-bounds',
    ]);
  });

  it('names the later of two overlapping widgets, a corner shared by one cell included', () => {
    expect(codes([w('a', 0, 0, 4, 4), w('b', 3, 3, 2, 2)])).toEqual(['body.widgets.1:layout-overlap']);
    expect(codes([w('a', 0, 0, 4, 4), w('b', 4, 4, 2, 2)])).toEqual([]);
  });

  it('refuses an id used twice', () => {
    expect(codes([w('a', 0, 0, 1, 1), w('a', 1, 0, 1, 1)])).toEqual(['body.widgets.1.id:duplicate-id']);
  });
});
