import { describe, expect, it } from 'vitest';
import { RowWindow, type Page } from '../dashboard/src/areas/data/row-window.js';

/** A fake data API over ids 1..n sorted by id: keyset cursors (`cursor` = last id) and `filter[id][gte]`. */
function fakeApi(n: number) {
  const asked: string[] = [];
  const fetchPage = async (query: string): Promise<Page> => {
    asked.push(query);
    const q = new URLSearchParams(query);
    const limit = Number(q.get('limit'));
    const desc = q.get('sort') === '-id';
    let from = desc ? n : 1;
    if (q.get('cursor')) from = Number(q.get('cursor')) + (desc ? -1 : 1);
    if (q.get('filter[id][gte]')) from = Number(q.get('filter[id][gte]'));
    const ids: number[] = [];
    for (let id = from; ids.length < limit && id >= 1 && id <= n; id += desc ? -1 : 1) ids.push(id);
    const more = desc ? ids[ids.length - 1]! > 1 : ids[ids.length - 1]! < n;
    return {
      rows: ids.map((id) => ({ id, name: `row ${id}` })),
      recordIds: ids.map(String),
      nextCursor: more ? String(ids[ids.length - 1]) : null,
      total: n,
      totalExact: false,
    };
  };
  return { asked, fetchPage };
}

const idColumn = { name: 'id', type: 'integer' };
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the grid row window', () => {
  it('follows cursors near the viewport, seeks a far jump without reading what lies between, and keeps memory bounded', async () => {
    const api = fakeApi(1_000_000);
    const w = new RowWindow((q) => api.fetchPage(q), '', 'sort=-id', { column: idColumn, desc: false });
    await w.load();
    expect(w.total).toBe(1_000_000);
    expect(w.rowAt(0)?.row.name).toBe('row 1');

    w.ensure(150, 180);
    for (let i = 0; i < 5; i++) await settle();
    expect(w.rowAt(180)?.row.name).toBe('row 181');
    expect(api.asked.at(-1)).toMatch(/cursor=100/);

    const before = api.asked.length;
    w.ensure(900_000, 900_030);
    for (let i = 0; i < 5; i++) await settle();
    expect(w.rowAt(900_000)?.row.name).toBe('row 900001');
    expect(w.rowAt(900_030)?.row.name).toBe('row 900031');
    const jump = api.asked.slice(before);
    expect(jump).toEqual(['sort=-id&limit=1', expect.stringMatching(/^filter\[id\]\[gte\]=900001&limit=\d+$/)]);
    expect(api.asked.every((q) => !/offset/.test(q))).toBe(true);

    // Scrolling on from there follows that page's cursor, and the window joins what it meets.
    for (let k = 0; k < 30; k++) {
      w.ensure(900_000 + k * 300, 900_030 + k * 300);
      for (let i = 0; i < 5; i++) await settle();
    }
    const at = 900_000 + 29 * 300;
    expect(w.rowAt(at)?.row.name, JSON.stringify([w.loadedCount, api.asked.slice(-3)])).toBe(`row ${at + 1}`);
    expect(w.loadedCount).toBeLessThanOrEqual(4000 + 500);
  });

  it('takes deleted rows out and puts changed ones in place', async () => {
    const api = fakeApi(10);
    const w = new RowWindow((q) => api.fetchPage(q), '', null, null);
    await w.load();
    expect(w.total).toBe(10);
    w.replace('3', { id: 3, name: 'changed' });
    expect(w.rowAt(2)?.row.name).toBe('changed');
    w.remove(['1', '2']);
    expect(w.total).toBe(8);
    expect(w.rowAt(0)?.row.name).toBe('changed');
  });
});
