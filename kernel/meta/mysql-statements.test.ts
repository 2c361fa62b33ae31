import { sql, type Kysely, type RawBuilder } from 'kysely';
import { createConnection, type Connection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, type StoreTarget } from '../../test/meta/support.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { MYSQL_MAX_PREPARED } from './mysql-statements.js';
import type { MetaStore } from './store.js';

const available = await databaseAvailable('mysql');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** The column types the meta tables use (kernel/meta/kernel-migrations.ts and the plugins'). */
interface Row {
  id: string;
  n: number;
  at: number;
  gone_at: number | null;
  flag: number;
  share: number | null;
  note: string | null;
  doc: string | null;
  state: string;
}

const ROWS: Row[] = [
  { id: 'a', n: 1, at: 1_764_000_000_123, gone_at: null, flag: 1, share: 0.1 + 0.2, note: null, doc: '{"a":[1,2,{"b":null}],"c":"é😀"}', state: 'queued' },
  { id: 'b', n: -2_147_483_648, at: 9_007_199_254_740_991, gone_at: 0, flag: 0, share: 3, note: '', doc: null, state: 'running' },
  { id: 'c', n: 2_147_483_647, at: -1, gone_at: -9_007_199_254_740_991, flag: 1, share: null, note: "it's \\ 'quoted' ? %s", doc: '[]', state: 'x'.repeat(16) },
  { id: 'd', n: 0, at: 0, gone_at: 1_764_000_000_000, flag: 0, share: 1 / 3, note: 'line\nbreak\ttab\u0000nul', doc: '"text"', state: '' },
  { id: 'e', n: 7, at: 1, gone_at: null, flag: 1, share: 123_456.789_012_345_6, note: 'é😀'.repeat(100), doc: '{}', state: 'done' },
];

/**
 * Statements whose results are compared: rows of every column type, expressions, aggregates and
 * bound values of each kind, and what stays on the text protocol (fractions, dates).
 */
function statements(): RawBuilder<unknown>[] {
  return [
    sql`select * from t order by id`,
    sql`select * from t where id = ${'c'}`,
    sql`select * from t where at >= ${0} and n < ${100} and gone_at is null order by id limit ${2}`,
    sql`select * from t order by id limit ${3} offset ${1}`,
    sql`select * from t where flag = ${true} order by id`,
    sql`select * from t where note = ${"it's \\ 'quoted' ? %s"}`,
    sql`select * from t where note is null or doc = ${null}`,
    sql`select count(*) as c, sum(n) as s, max(at) as m, avg(n) as a, min(share) as lo, max(note) as hi from t`,
    sql`select ${5} + 1 as i, ${9_007_199_254_740_991} as big, ${-3} as neg, ${'str'} as s, ${null} as z, ${true} as yes, ${false} as no`,
    // Integers bound as doubles would answer 1.5 and '9.007199254740991e15' here.
    sql`select ${3} / ${2} as q, cast(${9_007_199_254_740_991} as char) as c, concat(${'n'}, ${42}) as s`,
    sql`select ${0.5} * 2 as frac, ${new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678))} as d`,
    sql`select id, at - ${1_764_000_000_000} as since, coalesce(gone_at, ${-1}) as g, share * ${2} as twice from t order by id`,
    sql`select cast(${'2024-01-02 03:04:05.678'} as datetime(3)) as dt, cast(${'12.50'} as decimal(10, 2)) as dec1, 1 = 1 as t`,
    sql`with x as (select id, n from t where n > ${0}) select * from x order by id`,
  ];
}

describe.skipIf(!available)('a MySQL/MariaDB meta store keeps its prepared statements', () => {
  let target: StoreTarget;
  let store: MetaStore;
  let plain: Connection;
  beforeAll(async () => {
    target = await createStoreTarget('mysql');
    store = target.open();
    // The text protocol with the meta store's own connection options.
    plain = await createConnection({ uri: target.url!, charset: 'utf8mb4', timezone: 'Z' });
    await plain.query(`create table t (
      id varchar(32) primary key, n integer not null, at bigint not null, gone_at bigint, flag integer not null default 0,
      share double precision, note text, doc text, state varchar(16) not null)`);
  });
  afterAll(async () => {
    await plain?.end();
    await target?.dispose();
  });

  async function status(db: AnyDb): Promise<Record<string, number>> {
    const res = await sql<{ Variable_name: string; Value: string }>`show session status like 'Com_stmt_%'`.execute(db);
    return Object.fromEntries(res.rows.map((r) => [r.Variable_name, Number(r.Value)]));
  }

  it('writes rows through prepared statements as the text protocol writes them', async () => {
    const db = store.db as unknown as AnyDb;
    const counts = await db.connection().execute(async (conn) => {
      const before = await status(conn);
      // b and c bind integers, strings and NULL: one text prepared once, executed twice. a and
      // e bind a fraction, which stays on the text protocol.
      for (const row of [ROWS[0]!, ROWS[1]!, ROWS[2]!, ROWS[4]!]) await conn.insertInto('t').values(row).execute();
      const after = await status(conn);
      return { prepared: after.Com_stmt_prepare! - before.Com_stmt_prepare!, executed: after.Com_stmt_execute! - before.Com_stmt_execute! };
    });
    expect(counts).toEqual({ prepared: 1, executed: 2 });
    // d through the text protocol, as kysely compiles it.
    for (const row of [ROWS[3]!]) {
      const q = db.insertInto('t').values(row).compile();
      await plain.query(q.sql, q.parameters as unknown[]);
    }
    const [stored] = await plain.query('select * from t order by id');
    expect(stored).toEqual(ROWS);
    const updated = await db.updateTable('t').set({ flag: 1 }).where('flag', '=', 0).executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(2n);
    const unchanged = await db.updateTable('t').set({ flag: 1 }).where('id', '=', 'a').executeTakeFirst();
    expect([unchanged.numUpdatedRows, unchanged.numChangedRows]).toEqual([1n, 0n]);
    await db.updateTable('t').set({ flag: 0 }).where('id', 'in', ['b', 'd']).execute();
  });

  it('answers what the text protocol answers, for every column type and kind of value', async () => {
    const db = store.db as unknown as AnyDb;
    const prepared = await db.connection().execute(async (conn) => {
      const before = await status(conn);
      const results: unknown[] = [];
      for (const s of statements()) results.push((await s.execute(conn)).rows);
      const after = await status(conn);
      return { results, executed: after.Com_stmt_execute! - before.Com_stmt_execute! };
    });
    const texts: unknown[] = [];
    for (const s of statements()) {
      const q = s.compile(db);
      texts.push((await plain.query(q.sql, q.parameters as unknown[]))[0]);
    }
    expect(prepared.results).toEqual(texts);
    // Not vacuous: everything but the statement with a fraction and a date ran prepared.
    expect(prepared.executed).toBe(statements().length - 1);
    expect((prepared.results[0] as Row[]).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(prepared.results[2]).toEqual([ROWS[0], ROWS[4]]);
    expect(prepared.results[4]).toHaveLength(3);
  });

  it('keeps at most MYSQL_MAX_PREPARED statements per connection, closing the least recently used', async () => {
    const db = store.db as unknown as AnyDb;
    const closed = await db.connection().execute(async (conn) => {
      const before = await status(conn);
      for (let i = 0; i < MYSQL_MAX_PREPARED + 20; i++) await sql`select ${i} + ${sql.raw(String(i))} as n`.execute(conn);
      const after = await status(conn);
      return { prepared: after.Com_stmt_prepare! - before.Com_stmt_prepare!, closed: after.Com_stmt_close! - before.Com_stmt_close! };
    });
    expect(closed.prepared).toBe(MYSQL_MAX_PREPARED + 20);
    // Whatever this connection held before, it now holds at most the cap.
    expect(closed.closed).toBeGreaterThanOrEqual(20);
  });

  it('leaves statements that are not row reads or writes on the text protocol', async () => {
    const db = store.db as unknown as AnyDb;
    const counts = await db.connection().execute(async (conn) => {
      const before = await status(conn);
      await sql`set @x = ${1}`.execute(conn);
      await sql`create temporary table tmp_x (id int)`.execute(conn);
      await sql`drop temporary table tmp_x`.execute(conn);
      const after = await status(conn);
      return after.Com_stmt_prepare! - before.Com_stmt_prepare!;
    });
    expect(counts).toBe(0);
  });
});
