import { describe, expect, it } from 'vitest';
import { exportToGridQuery, gridQueryToExport } from '../dashboard/src/areas/transfer/gridQuery.js';

const column = (name: string, type: string) => ({ name, type });
const COLUMNS = [column('id', 'integer'), column('name', 'string'), column('active', 'boolean'), column('score', 'decimal'), column('seen', 'datetime')];

describe("the export screen's reading of the grid's query", () => {
  it('turns filter[col][op]=value into the exports filter, typed by the column', () => {
    const q = gridQueryToExport(
      'filter[id][gte]=10&filter[id][lt]=20&filter[name][like]=%25ann%25&filter[active]=true&filter[score][in]=1.5,2&filter[seen][null]=false&filter[name][in]=a,b&sort=-id,%2Bname&fields=id,name,nope&limit=50&cursor=abc',
      COLUMNS,
    );
    expect(q.filter).toEqual({
      id: { gte: 10, lt: 20 },
      name: { like: '%ann%', in: ['a', 'b'] },
      active: { eq: true },
      score: { in: ['1.5', '2'] },
      seen: { null: false },
    });
    expect(q.sort).toBe('-id,name');
    expect(q.fields).toEqual(['id', 'name']);
    expect(q.search).toBeNull();
    expect(q.dropped).toEqual([]);
    expect(q.conditions.map((c) => `${c.column} ${c.op} ${c.value}`)).toEqual([
      'id gte 10',
      'id lt 20',
      'name like %ann%',
      'active eq true',
      'score in 1.5,2',
      'seen null false',
      'name in a,b',
    ]);
  });

  it('carries the search, and lists what it cannot carry', () => {
    const q = gridQueryToExport('search=bob&filter[ghost][eq]=1&filter[id][has]=2&extra=1', COLUMNS);
    expect(q.filter).toBeNull();
    expect(q.search).toBe('bob');
    expect(q.dropped).toEqual(['filter[ghost][eq]=1', 'filter[id][has]=2', 'extra=1']);
  });

  it('puts a second condition of one operator on one column in another object of the list form, and reads it back', () => {
    const text = 'filter[id][gte]=1&filter[id][gte]=3&filter[name][in]=a,b&filter[name][in]=b,c&filter[id][lt]=9&search=x y&sort=id';
    const q = gridQueryToExport(text, COLUMNS);
    expect(q.filter).toEqual([
      { id: { gte: 1, lt: 9 }, name: { in: ['a', 'b'] } },
      { id: { gte: 3 }, name: { in: ['b', 'c'] } },
    ]);
    expect(q.search).toBe('x y');
    const back = exportToGridQuery({ filter: q.filter, search: q.search, sort: q.sort });
    const again = gridQueryToExport(back, COLUMNS);
    expect([again.filter, again.search, again.sort]).toEqual([q.filter, q.search, q.sort]);
  });

  it('leaves a value that is no number as text for a number column (the server names the problem)', () => {
    expect(gridQueryToExport('filter[id][eq]=abc', COLUMNS).filter).toEqual({ id: { eq: 'abc' } });
  });
});
