/**
 * Row-list cursors are handed out by the server and must come back unchanged: a forged or
 * malformed one is a 400 on the public API and on /data, never a 500, and never reaches SQL.
 * A statement that fails on its own must not make the whole connection look unreachable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAvailable } from './helpers/databases.js';
import { call } from './helpers/contract.js';
import { publicFixture, type Dialect, type PublicFixture } from '../plugins/public-api/testing.js';

const dialects: Dialect[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

/** The JSON a cursor carries before its signature, or null when it carries none readable. */
function payloadOf(cursor: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64url');

/** Cursors a client could make up: unsigned, re-signed by guess, with values of the wrong type. */
function forgeries(real: string): string[] {
  const body = payloadOf(real);
  const [payload, mac] = real.split('.');
  const out = [
    b64({ ...body, k: [{ $b: 'AAEC' }] }), // a binary marker for an integer key (took a PostgreSQL source down)
    b64({ ...body, k: ['not a number'] }),
    b64({ ...body, k: [{ nested: { deep: [1, 2, 3] } }] }),
    b64({ ...body, k: [1e308] }),
    b64({ ...body, o: 5 }),
    b64(body), // a real payload without its signature
    `${b64({ ...body, k: [1] })}.${mac ?? ''}`, // another payload under a real signature
    `${payload}.${'A'.repeat(22)}`,
  ];
  return out;
}

const MALFORMED = ['%%%', 'bm90IGpzb24', b64(null), b64([1, 2]), b64({ s: 1 }), b64('x'), 'a.b.c', '.', 'x'.repeat(499)];

describe.each(dialects)('cursors on %s', (dialect) => {
  let f: PublicFixture;
  let key: string;
  let dataCursor: string;
  let publicCursor: string;

  beforeAll(async () => {
    f = await publicFixture(dialect, { env: { SVC_PUBLIC_API_ORIGINS: 'https://shop.example' } });
    await f.endpoint({ ref: 'items', table: 'products', columns: ['id', 'name'], orderable: ['id', 'name'], rateLimit: 10_000 });
    key = (await f.key('browser', [{ ref: 'items', methods: ['GET'] }])).secret;
    const pub = await f.pub('GET', '/public/records/items?limit=2', { key });
    expect(pub.status, pub.text).toBe(200);
    publicCursor = pub.body.cursor;
    const data = await f.api('GET', `/data/${f.connectionId}/products?limit=2`);
    expect(data.status, data.text).toBe(200);
    dataCursor = data.body.data.nextCursor;
  });
  afterAll(async () => f?.close());

  it('pages with the cursors it hands out', async () => {
    const pub = await f.pub('GET', `/public/records/items?limit=2&cursor=${encodeURIComponent(publicCursor)}`, { key });
    expect(pub.status, pub.text).toBe(200);
    expect(pub.body.data.map((r: { id: number }) => r.id)).toEqual([248, 247]);
    const data = await f.api('GET', `/data/${f.connectionId}/products?limit=2&cursor=${encodeURIComponent(dataCursor)}`);
    expect(data.status, data.text).toBe(200);
    expect(data.body.data.rows.map((r: { id: number }) => r.id)).toEqual([3, 4]);
  });

  it('refuses a forged public cursor with 400 PUBLIC_QUERY_REFUSED, and the connection keeps serving everyone', async () => {
    for (const forged of forgeries(publicCursor)) {
      for (let i = 0; i < 3; i++) {
        const res = await f.pub('GET', `/public/records/items?limit=2&cursor=${encodeURIComponent(forged)}`, { key });
        expect(res.status, `${forged}: ${res.text}`).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'PUBLIC_QUERY_REFUSED', params: { parameter: 'cursor' } });
      }
    }
    const staff = await f.api('GET', `/data/${f.connectionId}/products?limit=1`);
    expect(staff.status, staff.text).toBe(200);
    expect((await f.pub('GET', '/public/records/items?limit=1', { key })).status).toBe(200);
  });

  it('refuses a cursor given twice', async () => {
    const twice = `cursor=${encodeURIComponent(publicCursor)}&cursor=${encodeURIComponent(publicCursor)}`;
    const pub = await f.pub('GET', `/public/records/items?${twice}`, { key });
    expect(pub.status, pub.text).toBe(400);
    expect(pub.body.error.code).toBe('PUBLIC_QUERY_REFUSED');
    const data = await f.api('GET', `/data/${f.connectionId}/products?cursor=${encodeURIComponent(dataCursor)}&cursor=${encodeURIComponent(dataCursor)}`);
    expect(data.status, data.text).toBe(400);
  });

  it('refuses a malformed public cursor with 400 PUBLIC_QUERY_REFUSED', async () => {
    for (const bad of MALFORMED) {
      const res = await f.pub('GET', `/public/records/items?cursor=${encodeURIComponent(bad)}`, { key });
      expect(res.status, `${bad}: ${res.text}`).toBe(400);
      expect(res.body.error.code).toBe('PUBLIC_QUERY_REFUSED');
    }
  });

  it('refuses a forged or malformed /data cursor with 400 VALIDATION_FAILED at query.cursor', async () => {
    for (const bad of [...forgeries(dataCursor), ...MALFORMED]) {
      const res = await f.api('GET', `/data/${f.connectionId}/products?limit=2&cursor=${encodeURIComponent(bad)}`);
      expect(res.status, `${bad}: ${res.text}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_FAILED', issues: [expect.objectContaining({ path: 'query.cursor' })] });
    }
    expect((await f.api('GET', `/data/${f.connectionId}/products?limit=1`)).status).toBe(200);
  });

  it('refuses a cursor of one list on another (another table, another sort)', async () => {
    const other = await f.api('GET', `/data/${f.connectionId}/bookings?cursor=${encodeURIComponent(dataCursor)}`);
    expect(other.status, other.text).toBe(400);
    const sorted = await f.api('GET', `/data/${f.connectionId}/products?sort=name&cursor=${encodeURIComponent(dataCursor)}`);
    expect(sorted.status, sorted.text).toBe(400);
    const fromPublic = await call(f.inst, f.admin, 'GET', `/api/v1/data/${f.connectionId}/products?cursor=${encodeURIComponent(publicCursor)}`);
    expect(fromPublic.status, fromPublic.text).toBe(400);
  });
});
