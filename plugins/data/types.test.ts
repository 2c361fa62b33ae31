import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePaths } from '../../test/helpers/identity.js';
import { availableDialects, dataEnv, qs, type DataEnv } from './testing.js';

const dialects = await availableDialects();

const BIG = '9007199254740993'; // 2^53 + 1: a double would read 9007199254740992
const JSON_DOC = { nested: { list: [1, 2.5, 'três', null, true], empty: {} }, 'key with "quotes"': 'ü ☕ 日本', n: -0.125 };
const BYTES = Buffer.from([0, 1, 2, 254, 255, 0x22, 0x27]);

describe.each(dialects)('values keep their type on %s', (dialect) => {
  let env: DataEnv;
  let userId: number;

  beforeAll(async () => {
    env = await dataEnv(dialect);
  });
  afterAll(async () => env?.close());

  const create = async (table: string, values: Record<string, unknown>) => {
    const res = await env.req(env.admin, 'POST', env.path(table), { values });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { row: Record<string, any>; recordId: string };
  };
  const get = async (table: string, recordId: string) => (await env.req(env.admin, 'GET', env.path(table, recordId))).body.data.row as Record<string, any>;

  it('keeps non-ASCII text, quotes, booleans, JSON and identifiers with spaces, quotes and reserved words', async () => {
    const created = await create('user', {
      email: 'zoë@example.com',
      'first name': 'Zoë “Ünïcode” 日本',
      "it's": `it's "quoted" \\ back`,
      is_active: false,
      profile: JSON_DOC,
    });
    userId = created.row.id;
    const row = await get('user', created.recordId);
    expect(row).toMatchObject({
      email: 'zoë@example.com',
      'first name': 'Zoë “Ünïcode” 日本',
      "it's": `it's "quoted" \\ back`,
      is_active: false,
      profile: JSON_DOC,
    });
    expect(typeof row.is_active).toBe('boolean');
    const other = await create('user', { email: 'b@example.com', is_active: true });
    expect(other.row.is_active).toBe(true);

    const byQuote = await env.req(env.admin, 'GET', env.path('user') + qs({ "filter[it's][like]": '%"quoted"%', sort: '-first name' }));
    expect(byQuote.body.data.rows.map((r: { id: number }) => r.id)).toEqual([userId]);
    const bySpace = await env.req(env.admin, 'GET', env.path('user') + qs({ 'filter[first name][eq]': 'Zoë “Ünïcode” 日本' }));
    expect(bySpace.body.data.total).toBe(1);
    const byBool = await env.req(env.admin, 'GET', env.path('user') + qs({ 'filter[is_active][eq]': 'false' }));
    expect(byBool.body.data.rows.map((r: { id: number }) => r.id)).toEqual([userId]);
    // Stored as the database's own boolean (0/1 on MySQL and SQLite).
    const stored = await sql<{ v: unknown }>`select ${sql.id('is_active')} as v from ${sql.id('user')} where id = ${userId}`.execute(env.db);
    expect([false, 0]).toContain(stored.rows[0]!.v);
  });

  it('keeps decimals with many digits and bigints beyond 2^53 exact, as strings', async () => {
    const order = await create('order', { user_id: userId, placed_on: '2024-02-29', total: '9999999999.99', note: null });
    expect(order.row).toMatchObject({ total: '9999999999.99', placed_on: '2024-02-29', status: 'pending', note: null });
    const product = await create('product', { sku: 'DEC-1', name: 'Precise', price: '12345678.91' });
    expect(product.row.price).toBe('12345678.91');
    expect((await create('product', { sku: 'DEC-2', name: 'Whole', price: 7 })).row.price).toBe('7.00');

    const event = await create('audit_event', { sequence_no: BIG, action: 'big', payload: [1, 'two', { three: 3 }] });
    expect(event.row).toMatchObject({ sequence_no: BIG, payload: [1, 'two', { three: 3 }] });
    const found = await env.req(env.admin, 'GET', env.path('audit_event') + qs({ 'filter[sequence_no][eq]': BIG }));
    expect(found.body.data.rows.map((r: { id: number }) => r.id)).toEqual([event.row.id]);
    const near = await env.req(env.admin, 'GET', env.path('audit_event') + qs({ 'filter[sequence_no][eq]': '9007199254740992' }));
    expect(near.body.data.total).toBe(0);
    const stored = await sql<{ v: string }>`select cast(sequence_no as ${sql.raw(dialect === 'mysql' ? 'char' : 'text')}) as v from audit_event`.execute(
      env.db,
    );
    expect(stored.rows[0]!.v).toBe(BIG);
  });

  it('keeps dates, date-times (a zone converted to UTC), times, uuids and binary', async () => {
    const order = await create('order', { user_id: userId, placed_on: '2023-12-31', total: '1.00' });
    const payment = await create('payment', {
      order_id: order.row.id,
      method: 'card',
      amount: '1234567890.12',
      paid_at: '2024-03-01T10:00:00+02:00',
      reference: '6f1e8f9e-54c1-4a0b-9f57-0c8a3cbd5e71',
      raw_response: ['ok', { code: 0 }],
      receipt: { $binary: BYTES.toString('base64') },
    });
    expect(payment.row).toMatchObject({
      amount: '1234567890.12',
      paid_at: '2024-03-01T08:00:00',
      reference: '6f1e8f9e-54c1-4a0b-9f57-0c8a3cbd5e71',
      raw_response: ['ok', { code: 0 }],
      receipt: { $binary: BYTES.toString('base64') },
    });
    const later = await env.req(
      env.admin,
      'GET',
      env.path('payment') + qs({ 'filter[paid_at][gte]': '2024-03-01T08:00:00', 'filter[paid_at][lt]': '2024-03-01T09:00:00Z' }),
    );
    expect(later.body.data.total).toBe(1);
    const cafe = await create('café', { name: 'Le Café ☕', größe: 'groß', opens_at: '07:30:00', rating: 4.5 });
    expect(cafe.row).toMatchObject({ name: 'Le Café ☕', größe: 'groß', opens_at: '07:30:00', rating: 4.5 });
    expect((await env.req(env.admin, 'GET', env.path('café') + qs({ 'filter[größe][eq]': 'groß' }))).body.data.total).toBe(1);
  });

  it('addresses natural and composite keys, a date among them', async () => {
    const setting = await create('setting', { key: 'site name', value: 'It\'s "mine"', updated_on: '2024-01-15' });
    expect(setting.recordId).toBe('site name');
    expect(await get('setting', 'site name')).toEqual({ key: 'site name', value: 'It\'s "mine"', updated_on: '2024-01-15' });
    const odd = await create('setting', { key: 'a/b?c#d%e f', value: null });
    expect(odd.recordId).toBe('a/b?c#d%e f');
    expect((await get('setting', 'a/b?c#d%e f')).key).toBe('a/b?c#d%e f');
    await create('warehouse', { code: 'PAR1', name: 'Paris' });
    const product = await create('product', { sku: 'STK-1', name: 'Stocked', price: '1.00' });
    const level = await create('stock_level', { product_id: product.row.id, warehouse_code: 'PAR1', taken_on: '2024-06-30', quantity: 5 });
    expect(JSON.parse(Buffer.from(level.recordId, 'base64url').toString())).toEqual([product.row.id, 'PAR1', '2024-06-30']);
    expect(await get('stock_level', level.recordId)).toEqual({ product_id: product.row.id, warehouse_code: 'PAR1', taken_on: '2024-06-30', quantity: 5 });
    const patched = await env.req(env.admin, 'PATCH', env.path('stock_level', level.recordId), { values: { quantity: 6 } });
    expect(patched.body.data.row.quantity).toBe(6);
  });

  it('refuses values beyond what the column holds, naming the column, before the database sees them', async () => {
    const refused = async (method: string, path: string, values: Record<string, unknown>, column: string) => {
      const res = await env.req(env.admin, method, path, { values });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(issuePaths(res)).toEqual([`body.values.${column}`]);
    };
    // Beyond a signed 64-bit integer, on every dialect (SQLite answered 500 before).
    for (const n of ['9223372036854775808', '-9223372036854775809', '18446744073709551616']) {
      await refused('POST', env.path('audit_event'), { sequence_no: n, action: 'x', payload: {} }, 'sequence_no');
    }
    const edge = await create('audit_event', { sequence_no: '9223372036854775807', action: 'edge', payload: {} });
    expect(edge.row.sequence_no).toBe('9223372036854775807');

    const product = await create('product', { sku: 'RANGE-1', name: 'Range', price: '1.00' });
    if (dialect === 'sqlite') {
      // SQLite stores any 64-bit integer in an INTEGER (or SMALLINT) column and does not bound decimals.
      const res = await env.req(env.admin, 'PATCH', env.path('product', product.recordId), { values: { stock: 2147483648, price: '123456789.00' } });
      expect(res.status, res.text).toBe(200);
      return;
    }
    // integer, smallint and numeric(10, 2): PostgreSQL's own refusal (22003) names no column.
    await refused('PATCH', env.path('product', product.recordId), { stock: 2147483648 }, 'stock');
    await refused('PATCH', env.path('product', product.recordId), { stock: -2147483649 }, 'stock');
    await refused('PATCH', env.path('product', product.recordId), { price: '123456789.00' }, 'price');
    await refused('PATCH', env.path('product', product.recordId), { price: '99999999.995' }, 'price');
    await refused('POST', env.path('review'), { product_id: product.row.id, rating: 40000 }, 'rating');
    const fits = await env.req(env.admin, 'PATCH', env.path('product', product.recordId), { values: { stock: 2147483647, price: '99999999.99' } });
    expect(fits.status, fits.text).toBe(200);
    expect(fits.body.data.row).toMatchObject({ stock: 2147483647, price: '99999999.99' });
  });

  it('refuses values of the wrong type, naming the column', async () => {
    const res = await env.req(env.admin, 'POST', env.path('product'), {
      values: { sku: 'BAD', name: 5, price: 'cheap', stock: 1.5, status: 'sold', attributes: null, nope: 1 },
    });
    expect(res.status).toBe(400);
    expect(issuePaths(res).sort()).toEqual(['body.values.name', 'body.values.nope', 'body.values.price', 'body.values.status', 'body.values.stock']);
    const generated = await env.req(env.admin, 'POST', env.path('order_item'), {
      values: { order_id: 1, line_no: 1, product_id: 1, unit_price: '1', line_total: '5' },
    });
    expect(issuePaths(generated)).toEqual(['body.values.line_total']);
  });
});
