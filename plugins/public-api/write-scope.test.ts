import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { publicFixture, type Dialect, type PublicFixture } from './testing.js';
import { PUBLIC_TEXT_MAX } from './values.js';

const pg = await databaseAvailable('postgres');
const my = await databaseAvailable('mysql');

/** What public writes may put in a row: inside the default filters, sensitive columns write-only, text capped. */
function writes(dialect: Dialect) {
  let f: PublicFixture;
  let server: string;
  beforeAll(async () => {
    f = await publicFixture(dialect);
    await f.endpoint({
      ref: 'shop',
      table: 'products',
      columns: ['id', 'name', 'sku', 'price', 'published', 'internal_note'],
      writable: ['name', 'sku', 'price', 'published', 'internal_note'],
      sensitive: ['internal_note'],
      filters: [{ column: 'published', op: 'eq', value: true }],
    });
    server = (await f.key('server', [{ ref: 'shop', methods: ['GET', 'POST', 'PATCH', 'PUT', 'BATCH'] }])).secret;
  });
  afterAll(async () => f?.close());
  beforeEach(() => f.clock.nextMinute());

  const stored = async (id: number) => {
    const row = await f.db.selectFrom('products').select(['name', 'published', 'internal_note']).where('id', '=', id).executeTakeFirstOrThrow();
    return { name: row.name as string, published: Boolean(Number(row.published)), note: row.internal_note as string | null };
  };
  const send = (method: string, path: string, body: unknown) => f.pub(method, `/public/records/shop${path}`, { key: server, body });
  const outside = { code: 'PUBLIC_WRITE_REFUSED', message: expect.any(String), params: { column: null, reason: 'outside-filter' } };

  it('refuses a PATCH, PUT or batch row that would move a row out of the default filters, as POST does', async () => {
    const patch = await send('PATCH', '/11', { values: { published: false, name: 'Gone' } });
    expect(patch.status, patch.text).toBe(400);
    expect(patch.body.error).toEqual(outside);
    expect(await stored(11)).toMatchObject({ name: 'Product 011', published: true });

    const put = await send('PUT', '/12', { values: { name: 'Twelve', sku: 'T-12', price: '1.00', published: false, internal_note: 'n' } });
    expect(put.status, put.text).toBe(400);
    expect(put.body.error).toEqual(outside);
    expect(await stored(12)).toMatchObject({ name: 'Product 012', published: true });

    // All or none: the first row's change is rolled back with the second's refusal.
    const batch = await send('POST', '/batch', {
      rows: [
        { id: 14, name: 'Fourteen' },
        { id: 16, published: false },
      ],
    });
    expect(batch.status, batch.text).toBe(400);
    expect(batch.body.error).toEqual({ ...outside, params: { ...outside.params, row: 1 } });
    expect(await stored(14)).toMatchObject({ name: 'Product 014', published: true });
    expect(await stored(16)).toMatchObject({ published: true });

    const post = await send('POST', '', { values: { name: 'Hidden', published: false } });
    expect(post.body.error).toEqual(outside);

    // A write that keeps the row inside still goes through.
    const ok = await send('PATCH', '/11', { values: { published: true, name: 'Eleven' } });
    expect(ok.status, ok.text).toBe(200);
    expect(await stored(11)).toMatchObject({ name: 'Eleven', published: true });
  });

  it('writes a writable sensitive column and never answers it', async () => {
    const created = await send('POST', '', { values: { name: 'Quiet', internal_note: 'guest phone +43 1 234' } });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body.data)).not.toContain('internal_note');
    const id = created.body.data.id as number;
    expect((await stored(id)).note).toBe('guest phone +43 1 234');

    const patched = await send('PATCH', `/${id}`, { values: { internal_note: 'changed' } });
    expect(patched.status, patched.text).toBe(200);
    expect(Object.keys(patched.body.data)).not.toContain('internal_note');
    expect((await stored(id)).note).toBe('changed');

    const batch = await send('POST', '/batch', { rows: [{ id, internal_note: 'from a batch' }] });
    expect(batch.status, batch.text).toBe(200);
    expect((await stored(id)).note).toBe('from a batch');

    const read = await f.pub('GET', `/public/records/shop/${id}`, { key: server });
    expect(Object.keys(read.body.data)).not.toContain('internal_note');
    const listed = await f.pub('GET', `/public/records/shop?filter[internal_note]=changed`, { key: server });
    expect(listed.body.error).toMatchObject({ code: 'PUBLIC_QUERY_REFUSED' });
    const config = await f.pub('GET', '/public/config', { key: server });
    expect(JSON.stringify(config.body)).not.toContain('internal_note');
  });

  it(`caps text the column does not bound at ${PUBLIC_TEXT_MAX} characters`, async () => {
    const long = await send('POST', '', { values: { name: 'Long', internal_note: 'é'.repeat(PUBLIC_TEXT_MAX + 1) } });
    expect(long.status, long.text).toBe(400);
    expect(long.body.error).toEqual({
      code: 'PUBLIC_WRITE_REFUSED',
      message: expect.any(String),
      params: { column: 'internal_note', reason: 'too-long', maxLength: PUBLIC_TEXT_MAX },
    });
    const patched = await send('PATCH', '/21', { values: { internal_note: 'x'.repeat(PUBLIC_TEXT_MAX + 1) } });
    expect(patched.body.error.params).toEqual({ column: 'internal_note', reason: 'too-long', maxLength: PUBLIC_TEXT_MAX });
    expect((await stored(21)).note).toBe('note 21');

    const fits = await send('POST', '', { values: { name: 'Fits', internal_note: 'é'.repeat(PUBLIC_TEXT_MAX) } });
    expect(fits.status, fits.text).toBe(201);
    expect((await stored(fits.body.data.id)).note).toHaveLength(PUBLIC_TEXT_MAX);
    // A column with its own bound keeps it.
    expect((await send('POST', '', { values: { name: 'x'.repeat(41) } })).body.error.params).toEqual({ column: 'name', reason: 'too-long', maxLength: 40 });
    // /public/config tells a writer the cap.
    await f.endpoint({ ref: 'notes', table: 'products', columns: ['id', 'name', 'internal_note'], writable: ['internal_note'], methods: ['GET', 'PATCH'] });
    const notes = (await f.key('server', [{ ref: 'notes', methods: ['GET', 'PATCH'] }])).secret;
    const config = await f.pub('GET', '/public/config', { key: notes });
    const columns = Object.fromEntries(config.body.data.endpoints[0].columns.map((c: { name: string; maxLength: number | null }) => [c.name, c.maxLength]));
    expect(columns).toEqual({ id: null, name: 40, internal_note: PUBLIC_TEXT_MAX });
  });
}

describe('public writes on SQLite', () => writes('sqlite'));
describe.runIf(pg)('public writes on PostgreSQL', () => writes('postgres'));
describe.runIf(my)('public writes on MariaDB/MySQL', () => writes('mysql'));
