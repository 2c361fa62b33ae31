import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { publicFixture, type Dialect, type PublicFixture } from './testing.js';

const dialects: Dialect[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

/** Public writes of values beyond what their column holds: 400 naming the column, on every dialect (DA13). */
describe.each(dialects)('public writes out of range on %s', (dialect) => {
  let f: PublicFixture;
  let key: string;

  beforeAll(async () => {
    f = await publicFixture(dialect);
    await sql.raw('create table counters (id integer primary key, small smallint, big bigint, amount decimal(6, 2))').execute(f.db);
    const intro = await f.api('POST', `/connections/${f.connectionId}/introspect`, {});
    expect(intro.status, intro.text).toBe(200);
    await f.endpoint({
      ref: 'counters',
      table: 'counters',
      columns: ['id', 'small', 'big', 'amount'],
      writable: ['id', 'small', 'big', 'amount'],
      methods: ['GET', 'POST', 'PATCH', 'BATCH'],
    });
    key = (await f.key('server', [{ ref: 'counters', methods: ['POST', 'PATCH', 'BATCH'] }])).secret;
  });
  afterAll(async () => f?.close());

  const post = (values: Record<string, unknown>) => f.pub('POST', '/public/records/counters', { key, body: { values } });

  it('refuses them with PUBLIC_WRITE_REFUSED naming the column', async () => {
    const refused = (column: string) => ({
      code: 'PUBLIC_WRITE_REFUSED',
      message: expect.any(String),
      params: { column, reason: expect.stringMatching(/^(out-of-range|format)$/) },
    });
    for (const big of ['9223372036854775808', '-9223372036854775809', '18446744073709551616']) {
      const res = await post({ id: 1, big });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toEqual(refused('big'));
    }
    expect((await post({ id: 1, big: '9223372036854775807', small: 7, amount: '9999.99' })).status).toBe(201);
    const patched = await f.pub('PATCH', '/public/records/counters/1', { key, body: { values: { big: '9223372036854775808' } } });
    expect(patched.status, patched.text).toBe(400);
    expect(patched.body.error).toEqual(refused('big'));
    const batch = await f.pub('POST', '/public/records/counters/batch', {
      key,
      body: {
        rows: [
          { id: 2, big: 1 },
          { id: 3, big: '-9223372036854775809' },
        ],
      },
    });
    expect(batch.status, batch.text).toBe(400);
    expect(batch.body.error.params).toMatchObject({ column: 'big', row: 1 });

    if (dialect === 'sqlite') return; // SQLite bounds neither SMALLINT nor DECIMAL.
    for (const [values, column] of [
      [{ id: 4, small: 40000 }, 'small'],
      [{ id: 4, amount: '10000.00' }, 'amount'],
    ] as const) {
      const res = await post(values);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toEqual({ code: 'PUBLIC_WRITE_REFUSED', message: expect.any(String), params: { column, reason: 'out-of-range' } });
    }
  });
});
