import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';

/**
 * On PostgreSQL the free-text search's statement fits a trigram index as it is (decisions DA14):
 * with `pg_trgm` and a GIN index on each searched column, a search reads the index, not the
 * whole table. Seen in the index's own scan counter, not in a timing.
 */
describe('a search on PostgreSQL uses a trigram index on the searched column', () => {
  let available = true;
  let temp: TempDatabase | undefined;
  let inst: TestInstance;
  let admin: HttpClient;
  let conn: string;
  let db: pg.Client;

  beforeAll(async () => {
    if (!(await databaseAvailable('postgres'))) {
      available = false;
      return;
    }
    temp = await createTempDatabase('postgres');
    db = new pg.Client({ connectionString: temp.url });
    await db.connect();
    await db.query(`create extension if not exists pg_trgm`);
    await db.query(`create table words (id serial primary key, name varchar(60) not null, qty integer not null default 0)`);
    await db.query(`insert into words (name) select 'word ' || md5(g::text) from generate_series(1, 20000) g`);
    await db.query(`create index words_name_trgm on words using gin (name gin_trgm_ops)`);
    await db.query(`analyze words`);
    ({ inst, admin } = await bootWithAdmin());
    const created = await admin.post('/api/v1/connections', { name: 'Words', dialect: 'postgres', url: temp.url });
    expect(created.status, created.text).toBe(201);
    conn = created.body.data.connection.id;
    const introspected = await admin.post(`/api/v1/connections/${conn}/introspect`);
    expect(introspected.status, introspected.text).toBeLessThan(300);
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await inst?.close();
    await temp?.drop();
  });

  const scans = async () => Number((await db.query(`select idx_scan from pg_stat_user_indexes where indexrelname = 'words_name_trgm'`)).rows[0]?.idx_scan ?? 0);

  it('reads the index for a rare text', async (ctx) => {
    if (!available) return ctx.skip();
    const before = await scans();
    const target = (await db.query(`select name from words where id = 12345`)).rows[0].name as string;
    const found = await admin.get(`/api/v1/data/${conn}/words?search=${encodeURIComponent(target.slice(5, 17))}&limit=10`);
    expect(found.status, found.text).toBe(200);
    expect(found.body.data.rows.map((r: { name: string }) => r.name)).toEqual([target]);
    // A backend that goes idle flushes its statistics within PGSTAT_IDLE_INTERVAL (10 s).
    await expect.poll(scans, { timeout: 25_000 }).toBeGreaterThan(before);
  }, 60_000);
});
