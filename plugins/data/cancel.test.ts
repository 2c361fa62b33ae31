import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { createTempDatabase, databaseAvailable, type ServerDialect, type TempDatabase } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';

/**
 * A client that goes away during a search (the dashboard's Cancel aborts its request) stops the
 * search's statement in the database too (engine/rows/cancel.ts): PostgreSQL by
 * pg_cancel_backend, MariaDB by KILL QUERY. The table is read through a view whose column takes
 * a few milliseconds a row, so a search over its 3,000 rows runs for many seconds unless cancelled.
 */
const SETUP: Record<ServerDialect, string[]> = {
  postgres: [
    `create table words (id serial primary key, name text not null)`,
    `insert into words (name) select 'word ' || g from generate_series(1, 3000) g`,
    // plpgsql: never inlined, so every row read through the view waits.
    `create function slow_text(t text) returns text language plpgsql immutable as $$ begin perform pg_sleep(0.01); return t; end $$`,
    `create view slow_words as select id, slow_text(name) as name from words`,
  ],
  mysql: [
    `create table words (id integer primary key auto_increment, name varchar(40) not null)`,
    `set session max_recursive_iterations = 10000`,
    `insert into words (name) with recursive g(n) as (select 1 union all select n + 1 from g where n < 3000) select concat('word ', n) from g`,
    `create function slow_text(t varchar(40)) returns varchar(40) deterministic no sql begin do sleep(0.01); return t; end`,
    `create view slow_words as select id, slow_text(name) as name from words`,
  ],
};

/** How many statements of the source's database read the slow view now (the test's own excluded; MariaDB shows the function's statement running). */
const RUNNING: Record<ServerDialect, string> = {
  postgres: `select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and query ilike '%slow_words%' and pid <> pg_backend_pid()`,
  mysql: `select count(*) as n from information_schema.processlist where db = database() and command <> 'Sleep' and (info like '%slow_words%' or info like '%sleep(0.01)%') and id <> connection_id()`,
};

async function open(dialect: ServerDialect, url: string) {
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    return { run: async (q: string) => (await c.query(q)).rows as Array<Record<string, unknown>>, close: () => c.end() };
  }
  const c = await mysql.createConnection({ uri: url, multipleStatements: false });
  return { run: async (q: string) => (await c.query(q))[0] as Array<Record<string, unknown>>, close: () => c.end() };
}

for (const dialect of ['postgres', 'mysql'] as const) {
  describe(`a search the client cancels is cancelled in the database (${dialect})`, () => {
    let available = true;
    let temp: TempDatabase | undefined;
    let inst: TestInstance;
    let admin: HttpClient;
    let conn: string;
    let db: Awaited<ReturnType<typeof open>>;

    beforeAll(async () => {
      if (!(await databaseAvailable(dialect))) {
        available = false;
        return;
      }
      temp = await createTempDatabase(dialect);
      db = await open(dialect, temp.url);
      for (const q of SETUP[dialect]) await db.run(q);
      ({ inst, admin } = await bootWithAdmin());
      const created = await admin.post('/api/v1/connections', { name: 'Words', dialect, url: temp.url });
      expect(created.status, created.text).toBe(201);
      conn = created.body.data.connection.id;
      const introspected = await admin.post(`/api/v1/connections/${conn}/introspect`);
      expect(introspected.status, introspected.text).toBeLessThan(300);
    }, 60_000);

    afterAll(async () => {
      await db?.close();
      await inst?.close();
      await temp?.drop();
    });

    const running = async () => Number((await db.run(RUNNING[dialect]))[0]!.n);

    it('stops the statement when the request is aborted; the source answers the next search', async (ctx) => {
      if (!available) return ctx.skip();
      const controller = new AbortController();
      const request = admin.get(`/api/v1/data/${conn}/slow_words?search=nowhere&limit=100`, { signal: controller.signal }).catch((err: unknown) => err);
      await expect.poll(running, { timeout: 15_000 }).toBe(1);
      controller.abort();
      expect(await request).toBeInstanceOf(Error);
      // Without the cancel the statement would read on for half a minute.
      await expect.poll(running, { timeout: 10_000 }).toBe(0);
      // The pinned connection went back to the pool working: a search that finds rows answers them.
      const found = await admin.get(`/api/v1/data/${conn}/words?search=word%2012&limit=5`);
      expect(found.status, found.text).toBe(200);
      expect(found.body.data.rows.map((r: { name: string }) => r.name)).toContain('word 12');
    });
  });
}
