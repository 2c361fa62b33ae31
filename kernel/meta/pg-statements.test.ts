import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, type StoreTarget } from '../../test/meta/support.js';
import { databaseAvailable } from '../../test/helpers/databases.js';

const available = await databaseAvailable('postgres');

describe.skipIf(!available)('a PostgreSQL meta store keeps its prepared statements', () => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget('postgres');
  });
  afterAll(async () => target?.dispose());

  it('parses a row statement once per connection and runs it again bound to other values', async () => {
    const store = target.open();
    const runs = await store.db.connection().execute(async (db) => {
      for (const n of [1, 2, 3]) expect((await sql<{ n: number }>`select ${n}::int + 1 as n`.execute(db)).rows[0]?.n).toBe(n + 1);
      const res = await sql<{ statement: string; runs: number }>`
        select statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements`.execute(db);
      return res.rows;
    });
    const mine = runs.filter((r) => r.statement.includes('::int + 1'));
    expect(mine).toEqual([{ statement: 'select $1::int + 1 as n', runs: 3 }]);
  });

  it('leaves statements that are not row reads or writes unnamed', async () => {
    const store = target.open();
    const names = await store.db.connection().execute(async (db) => {
      await sql`set statement_timeout = 0`.execute(db);
      await sql`create temporary table tmp_x (id int)`.execute(db);
      return (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map((r) => r.statement);
    });
    expect(names.some((s) => /set statement_timeout|create temporary/.test(s))).toBe(false);
  });
});
