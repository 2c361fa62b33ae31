import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, openTempDatabase } from '../../test/fixtures/schema/open.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { TokenSigner } from '../../kernel/crypto.js';
import { rowDialect } from './dialects/index.js';
import { parseListParams } from './query-params.js';
import { PlannerEstimates } from './planner-estimates.js';
import { countRows, listRows, toWireRow, whereSql } from './read.js';
import { statementStats } from './statements.js';
import { col, idCol, tbl } from './testing.js';
import type { RowsDialectName } from './types.js';

const cursors = new TokenSigner('s'.repeat(40), 'test.cursor');

const dialects: RowsDialectName[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

// 60 rows: `grp` has 4 values (many ties), `score` is NULL for every fifth row and tied in pairs.
const ROWS = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, grp: ['b', 'a', 'c', 'a'][i % 4]!, score: i % 5 === 0 ? null : Math.floor(i / 2) % 7 }));
const table = tbl('keyset test', [idCol(), col('grp', 'string', { nullable: false }), col('score', 'integer')]);

/** The order the API promises: NULL is the largest value; the primary key breaks ties. */
function expected(sort: Array<['grp' | 'score', boolean]>): number[] {
  const cmp = (a: (typeof ROWS)[number], b: (typeof ROWS)[number]) => {
    for (const [k, desc] of sort) {
      const x = a[k];
      const y = b[k];
      if (x === y) continue;
      const order = x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
      return desc ? -order : order;
    }
    // Ties break by the primary key in the direction of the last sort key.
    const lastDesc = sort.length > 0 ? sort[sort.length - 1]![1] : false;
    return lastDesc ? b.id - a.id : a.id - b.id;
  };
  return [...ROWS].sort(cmp).map((r) => r.id);
}

describe.each(dialects)('keyset pages on %s', (dialect) => {
  let db: Kysely<any>;
  let dispose: (() => Promise<void>) | undefined;
  const d = rowDialect(dialect);

  beforeAll(async () => {
    ({ db, dispose } = await openTempDatabase(dialect));
    await sql`create table ${sql.id('keyset test')} (id integer not null primary key, grp varchar(10) not null, score integer)`.execute(db);
    for (const r of ROWS) await sql`insert into ${sql.id('keyset test')} (id, grp, score) values (${r.id}, ${r.grp}, ${r.score})`.execute(db);
  });
  afterAll(async () => {
    await dispose?.();
  });

  const pageAll = async (sort: string, limit: number, filters: Record<string, string> = {}) => {
    const ids: number[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 100; n++) {
      const p = parseListParams(
        { sort, limit: String(limit), ...filters, ...(cursor ? { cursor } : {}) },
        { table, readable: new Set(['id', 'grp', 'score']) },
      );
      const page = await listRows(db, d, table, p, { output: table.columns, searchable: [], cursors });
      ids.push(...page.rows.map((r) => r.id as number));
      if (!page.nextCursor) return ids;
      cursor = page.nextCursor;
    }
    throw new Error('did not end');
  };

  it.each([
    ['grp', [['grp', false]]],
    ['-grp', [['grp', true]]],
    ['score', [['score', false]]],
    ['-score', [['score', true]]],
    [
      'grp,-score',
      [
        ['grp', false],
        ['score', true],
      ],
    ],
    [
      '-score,-grp',
      [
        ['score', true],
        ['grp', true],
      ],
    ],
  ] as const)('sort=%s visits every row once, in order, across ties and NULLs', async (sort, spec) => {
    for (const limit of [1, 7, 60]) expect(await pageAll(sort, limit)).toEqual(expected(spec as never));
  });

  it('counts exactly and filters with NULLs kept by ne', async () => {
    const p = parseListParams({ 'filter[score][ne]': '3' }, { table, readable: new Set(['id', 'grp', 'score']) });
    const count = await countRows(db, d, table, whereSql(d, p.filters, null, []));
    expect(count).toEqual({ total: ROWS.filter((r) => r.score !== 3).length, exact: true });
    expect((await pageAll('', 13, { 'filter[score][null]': 'true' })).length).toBe(12);
  });

  it('answers the planner estimate above the exact-count threshold (SQLite always counts)', async () => {
    const count = await countRows(db, d, table, null, { exactBelow: 10 });
    if (dialect === 'sqlite') expect(count).toEqual({ total: 60, exact: true });
    else {
      expect(count.exact).toBe(false);
      expect(count.total).toBeGreaterThan(0);
    }
  });

  it('keeps the planner figure between pages: one round trip once it is known, refreshed in the background when old', async () => {
    let clock = 0;
    const cache = new PlannerEstimates(10, 1000, () => clock);
    let explains = 0;
    const counting = {
      ...d,
      explainRows: (q: Parameters<typeof d.explainRows>[0], c: Parameters<typeof d.explainRows>[1]) => (explains++, d.explainRows(q, c)),
    };
    const opts = { exactBelow: 10, estimates: { cache, scope: 'conn-1' } };
    const first = await countRows(db, counting, table, null, opts);
    const second = await countRows(db, counting, table, null, opts);
    expect(second).toEqual(first);
    if (dialect === 'sqlite') return expect(explains).toBe(0);
    expect(first.exact).toBe(false);
    expect(explains).toBe(1);
    clock = 5000;
    expect(await countRows(db, counting, table, null, opts)).toEqual(first);
    expect(explains).toBe(2);
    const p = parseListParams({ 'filter[score][ne]': '3' }, { table, readable: new Set(['id', 'grp', 'score']) });
    await countRows(db, counting, table, whereSql(d, p.filters, null, []), opts);
    expect(explains).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('reuses a statement text per shape, with every value where it belongs', async () => {
    const before = { ...statementStats };
    const ids = async (q: Record<string, string>) =>
      (
        await listRows(db, d, table, parseListParams({ limit: '60', ...q }, { table, readable: new Set(['id', 'grp', 'score']) }), {
          output: table.columns,
          searchable: table.columns,
          cursors,
        })
      ).rows.map((r) => r.id);
    for (const [grp, score] of [
      ['a', 2],
      ['b', 5],
      ['c', 0],
    ] as const) {
      expect(await ids({ 'filter[grp][in]': `${grp},x`, 'filter[score][ne]': String(score) })).toEqual(
        ROWS.filter((r) => r.grp === grp && r.score !== score).map((r) => r.id),
      );
      expect(await ids({ search: grp.toUpperCase() })).toEqual(ROWS.filter((r) => r.grp === grp).map((r) => r.id));
    }
    // Every list of this file so far (keyset pages across NULLs included) embedded what listValues gave.
    expect(statementStats.mismatched).toBe(0);
    expect(statementStats.reused).toBeGreaterThanOrEqual(before.reused + 4);
  });
});

describe('wire rows', () => {
  it('keeps every column as an own property, a column called __proto__ and odd names included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rows-'));
    const db = openDatabase('sqlite', join(dir, 'w.db'));
    try {
      const odd = ['__proto__', 'with "quotes"', 'back\\slash', 'line\nbreak', 'constructor', '}; throw 1; //'];
      const oddTable = tbl('odd names', [idCol(), ...odd.map((name) => col(name, 'string'))]);
      await sql`create table ${sql.id('odd names')} (id integer not null primary key, ${sql.join(odd.map((n) => sql`${sql.id(n)} text`))})`.execute(db);
      for (const id of [1, 2, 3])
        await sql`insert into ${sql.id('odd names')} (id, ${sql.join(odd.map((n) => sql.id(n)))}) values (${id}, ${sql.join(odd.map((n) => `${n}:${id}`))})`.execute(
          db,
        );
      const d = rowDialect('sqlite');
      const params = parseListParams(
        { limit: '2' },
        { table: oddTable, readable: new Set(oddTable.columns.map((c) => c.name)), defaultLimit: 50, maxLimit: 500 },
      );
      const page = await listRows(db, d, oddTable, params, { output: oddTable.columns, searchable: [], cursors });
      expect(page.rows).toHaveLength(2);
      for (const [i, row] of page.rows.entries()) {
        expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
        expect(Object.keys(row)).toEqual(['id', ...odd]);
        for (const name of odd) expect(Object.getOwnPropertyDescriptor(row, name)?.value).toBe(`${name}:${i + 1}`);
      }
      expect(JSON.parse(JSON.stringify(page.rows[0]))).toEqual(Object.fromEntries([['id', 1], ...odd.map((n) => [n, `${n}:1`])]));
      // The key-by-key path (one row read by its key) answers alike.
      const one = toWireRow(d, oddTable.columns, [7, ...odd.map((n) => `${n}:7`)]);
      expect(Object.getPrototypeOf(one)).toBe(Object.prototype);
      expect(Object.keys(one)).toEqual(['id', ...odd]);
      expect(Object.getOwnPropertyDescriptor(one, '__proto__')?.value).toBe('__proto__:7');
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
