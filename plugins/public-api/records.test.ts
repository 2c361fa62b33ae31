import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { MINUTE, ORIGIN, OTHER_ORIGIN, publicFixture, type Dialect, type PublicFixture } from './testing.js';

const pg = await databaseAvailable('postgres');

/** Ids the fixture publishes, newest first: every fifth product is unpublished. */
const PUBLISHED = Array.from({ length: 250 }, (_, i) => 250 - i).filter((id) => id % 5 !== 0);

function records(dialect: Dialect) {
  let f: PublicFixture;
  let browser: string;
  let server: string;
  let readOnly: string;

  beforeAll(async () => {
    f = await publicFixture(dialect, { env: { SVC_CORS_ORIGINS: 'https://admin.example' } });
    await f.api('PUT', `/connections/${f.connectionId}/schema/overrides`, {
      tables: [
        {
          table: 'products',
          columns: [
            { column: 'api_token', secret: true },
            { column: 'supplier_email', personal: true },
          ],
        },
      ],
    });
    await f.endpoint({
      ref: 'items',
      table: 'products',
      columns: ['id', 'name', 'sku', 'price', 'published', 'internal_note'],
      writable: ['name', 'sku', 'price', 'published'],
      sensitive: ['internal_note'],
      defaults: { internal_note: 'from the shop' },
      filters: [{ column: 'published', op: 'eq', value: true }],
      filterable: ['name', 'price'],
      orderable: ['name', 'id'],
      searchable: ['name'],
    });
    await f.endpoint({ ref: 'items-array', table: 'products', shape: 'array', filters: [{ column: 'published', op: 'eq', value: true }] });
    await f.endpoint({ ref: 'item-seven', table: 'products', shape: 'single', filters: [{ column: 'id', op: 'eq', value: 7 }] });
    const all = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'BATCH'];
    browser = (
      await f.key('browser', [
        { ref: 'items', methods: all },
        { ref: 'items-array', methods: ['GET'] },
        { ref: 'item-seven', methods: ['GET'] },
        { ref: 'products', methods: ['GET'] },
      ])
    ).secret;
    server = (await f.key('server', [{ ref: 'items', methods: all }])).secret;
    readOnly = (await f.key('browser', [{ ref: 'items', methods: ['GET', 'POST', 'BATCH'] }])).secret;
  });
  afterAll(async () => f?.close());
  beforeEach(() => f.clock.nextMinute());

  const count = async () =>
    Number(
      (await f.db
        .selectFrom('products')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst())!.n,
    );

  describe('the error table', () => {
    it('401 PUBLIC_KEY_INVALID for a missing, unknown, revoked or expired key', async () => {
      for (const key of [null, 'adm_pub_nope', 'adm_sk_notapublickey', 'Basic abc']) {
        const res = await f.pub('GET', '/public/records/items', { key, origin: ORIGIN });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: { code: 'PUBLIC_KEY_INVALID', message: expect.any(String) } });
      }
      const revoked = await f.key('server', [{ ref: 'items', methods: ['GET'] }]);
      expect((await f.pub('GET', '/public/records/items', { key: revoked.secret })).status).toBe(200);
      expect((await f.api('DELETE', `/public-keys/${revoked.id}`)).status).toBe(200);
      expect((await f.pub('GET', '/public/records/items', { key: revoked.secret })).body.error.code).toBe('PUBLIC_KEY_INVALID');

      const expiring = await f.key('server', [{ ref: 'items', methods: ['GET'] }], '30d');
      expect((await f.pub('GET', '/public/records/items', { key: expiring.secret })).status).toBe(200);
      const back = f.clock.now();
      f.clock.set(back + 31 * 24 * 60 * MINUTE);
      expect((await f.pub('GET', '/public/records/items', { key: expiring.secret })).body.error.code).toBe('PUBLIC_KEY_INVALID');
      f.clock.set(back + MINUTE);
    });

    it('403 PUBLIC_ORIGIN_REFUSED for a browser key from an unlisted origin and a server key from a browser', async () => {
      const cases = [
        { key: browser, origin: OTHER_ORIGIN },
        { key: browser, origin: 'https://admin.example' },
        { key: browser, origin: null },
        { key: server, origin: ORIGIN },
        { key: server, origin: null, headers: { 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site' } },
      ];
      for (const c of cases) {
        const res = await f.pub('GET', '/public/records/items', c);
        expect(res.status, JSON.stringify(c.origin)).toBe(403);
        expect(res.body.error.code).toBe('PUBLIC_ORIGIN_REFUSED');
        expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      }
    });

    it('404 PUBLIC_REF_NOT_FOUND reads byte for byte the same for an unknown endpoint, an ungranted method and a row outside the filter', async () => {
      const unknown = await f.pub('GET', '/public/records/nothing-here', { key: browser });
      const ungranted = await f.pub('DELETE', '/public/records/items/7', { key: readOnly });
      const ungrantedRef = await f.pub('GET', '/public/records/item-seven', { key: readOnly });
      const outside = await f.pub('GET', '/public/records/items/5', { key: browser });
      const missing = await f.pub('GET', '/public/records/items/99999', { key: browser });
      const notAKey = await f.pub('GET', '/public/records/items/abc', { key: browser });
      for (const res of [unknown, ungranted, ungrantedRef, outside, missing, notAKey]) {
        expect(res.status).toBe(404);
        expect(res.text).toBe(unknown.text);
        expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
      }
      expect(unknown.body).toEqual({ error: { code: 'PUBLIC_REF_NOT_FOUND', message: 'Not found.' } });
      expect(unknown.headers.get('x-request-id')).not.toBe(outside.headers.get('x-request-id'));
    });

    it('400 PUBLIC_WRITE_REFUSED names the column and the reason', async () => {
      const post = (values: unknown) => f.pub('POST', '/public/records/items', { key: browser, body: { values } });
      const cases: Array<[unknown, Record<string, unknown>]> = [
        [
          { name: 'x', id: 9 },
          { column: 'id', reason: 'not-writable' },
        ],
        [
          { name: 'x', internal_note: 'sneaky' },
          { column: 'internal_note', reason: 'not-writable' },
        ],
        [
          { name: 'x', api_token: 'sneaky' },
          { column: 'api_token', reason: 'not-writable' },
        ],
        [{ sku: 'S-1' }, { column: 'name', reason: 'required' }],
        [{ name: 'x'.repeat(41) }, { column: 'name', reason: 'too-long', maxLength: 40 }],
        [{ name: 'bad\u0000name' }, { column: 'name', reason: 'invalid-character' }],
        [
          { name: 'x', price: 'cheap' },
          { column: 'price', reason: 'format' },
        ],
        [
          { name: 'x', published: 'yes' },
          { column: 'published', reason: 'type' },
        ],
        [{ name: null }, { column: 'name', reason: 'required' }],
        // The database refuses it: sku is unique.
        [
          { name: 'dup', sku: 'SKU-00001' },
          { column: 'sku', reason: 'duplicate' },
        ],
      ];
      const before = await count();
      for (const [values, params] of cases) {
        const res = await post(values);
        expect(res.status, JSON.stringify(values)).toBe(400);
        expect(res.body.error).toEqual({ code: 'PUBLIC_WRITE_REFUSED', message: expect.any(String), params });
      }
      const put = await f.pub('PUT', '/public/records/items/1', { key: browser, body: { values: { name: 'Only the name' } } });
      expect(put.status).toBe(400);
      expect(put.body.error.params).toEqual({ column: 'sku', reason: 'required' });
      for (const rows of [[], Array.from({ length: 501 }, (_, i) => ({ name: `n${i}` }))]) {
        const res = await f.pub('POST', '/public/records/items/batch', { key: server, body: { rows } });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'PUBLIC_WRITE_REFUSED', params: { column: null, reason: 'batch-size', count: rows.length } });
      }
      expect(await count()).toBe(before);
    });

    it('400 PUBLIC_QUERY_REFUSED for a filter or sort the endpoint does not allow, and for NUL in any parameter', async () => {
      const cases: Array<[string, string]> = [
        ['/public/records/items?filter[sku][eq]=SKU-00001', 'filter[sku][eq]'],
        ['/public/records/items?filter[published]=false', 'filter[published]'],
        ['/public/records/items?filter[internal_note][like]=note', 'filter[internal_note][like]'],
        ['/public/records/items?sort=-price', 'sort'],
        ['/public/records/items?limit=201', 'limit'],
        ['/public/records/items?color=red', 'color'],
        ['/public/records/items?search=a%00b', 'search'],
        ['/public/records/items?filter[name][eq]=%00', 'filter[name][eq]'],
        ['/public/records/it%00ems', 'ref'],
        ['/public/records/items/7%00', 'id'],
        ['/public/availability/items?date=2026-03-02%00&party=2', 'date'],
        ['/public/records/items?limit=1&limit=2', 'limit'],
      ];
      for (const [path, parameter] of cases) {
        const res = await f.pub('GET', path, { key: browser });
        expect(res.status, path).toBe(400);
        expect(res.body.error, path).toMatchObject({ code: 'PUBLIC_QUERY_REFUSED', params: { parameter } });
      }
      const nulWrite = await f.pub('PATCH', '/public/records/it%00ems/7', { key: browser, body: { values: { name: 'x' } } });
      expect(nulWrite.body.error).toMatchObject({ code: 'PUBLIC_QUERY_REFUSED', params: { parameter: 'ref' } });
    });

    it('503 PUBLIC_API_DISABLED for every public request while the switch is off, and back on at once', async () => {
      expect((await f.api('PUT', '/public-api', { enabled: false })).status).toBe(200);
      try {
        for (const [method, path, key] of [
          ['GET', '/public/records/items', browser],
          ['GET', '/public/config', server],
          ['POST', '/public/claim', null],
          ['DELETE', '/public/records/nope/1', 'adm_pub_unknown'],
        ] as const) {
          const res = await f.pub(method, path, { key, body: method === 'POST' ? { ref: 'x', values: {} } : undefined, origin: ORIGIN });
          expect(res.status, `${method} ${path}`).toBe(503);
          expect(res.body).toEqual({ error: { code: 'PUBLIC_API_DISABLED', message: expect.any(String) } });
          expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
        }
      } finally {
        await f.api('PUT', '/public-api', { enabled: true });
      }
      expect((await f.pub('GET', '/public/records/items', { key: browser })).status).toBe(200);
    });
  });

  describe('CORS from SVC_PUBLIC_API_ORIGINS only', () => {
    it('answers a listed origin’s preflight, never credentialed, and refuses others', async () => {
      const client = f.inst.client();
      const preflight = (origin: string) =>
        client.request('OPTIONS', '/api/v1/public/records/items', {
          noOrigin: true,
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, x-svc-public-session' },
        });
      const ok = await preflight(ORIGIN);
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(ok.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, X-Svc-Public-Session');
      expect(ok.headers.get('access-control-allow-methods')).toContain('PATCH');
      expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
      for (const origin of [OTHER_ORIGIN, 'https://admin.example']) {
        const no = await preflight(origin);
        expect(no.status).toBe(403);
        expect(no.headers.get('access-control-allow-origin')).toBeNull();
        expect(no.headers.get('access-control-allow-credentials')).toBeNull();
      }
      const res = await f.pub('GET', '/public/records/items', { key: browser });
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-expose-headers')).toContain('X-Next-Cursor');
      expect(res.headers.get('access-control-expose-headers')).toContain('Retry-After');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      // The dashboard's own CORS still works for its routes.
      const dash = await client.request('GET', '/api/v1/healthz', { headers: { origin: 'https://admin.example' } });
      expect(dash.headers.get('access-control-allow-credentials')).toBe('true');
    });
  });

  describe('reads', () => {
    it('pages 20 rows by default, up to 200, newest key first, inside the default filters, with a cursor', async () => {
      const first = await f.pub('GET', '/public/records/items', { key: browser });
      expect(first.status).toBe(200);
      expect(Object.keys(first.body)).toEqual(['data', 'page', 'cursor']);
      expect(first.body.data.map((r: any) => r.id)).toEqual(PUBLISHED.slice(0, 20));
      expect(first.body.page).toEqual({ limit: 20, count: 20 });
      const max = await f.pub('GET', '/public/records/items?limit=200', { key: browser });
      expect(max.body.data.map((r: any) => r.id)).toEqual(PUBLISHED);
      expect(max.body.cursor).toBeNull();
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await f.pub('GET', `/public/records/items?limit=70${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: browser });
        seen.push(...res.body.data.map((r: any) => r.id));
        cursor = res.body.cursor;
      } while (cursor);
      expect(seen).toEqual(PUBLISHED);
    });

    it('returns only exposed columns: never secret, personal or sensitive ones', async () => {
      const listed = await f.pub('GET', '/public/records/items?limit=1', { key: browser });
      expect(Object.keys(listed.body.data[0]).sort()).toEqual(['id', 'name', 'price', 'published', 'sku']);
      const generated = await f.pub('GET', '/public/records/products?limit=1', { key: browser });
      expect(generated.status).toBe(200);
      expect(Object.keys(generated.body.data[0]).sort()).toEqual(['id', 'internal_note', 'name', 'price', 'published', 'sku']);
      const one = await f.pub('GET', '/public/records/items/7', { key: browser });
      expect(one.body).toEqual({ data: { id: 7, name: 'Product 007', sku: 'SKU-00007', price: '10.50', published: true } });
    });

    it('filters, sorts and searches within what the endpoint allows', async () => {
      const byName = await f.pub('GET', `/public/records/items?filter[name][like]=${encodeURIComponent('Product 00%')}&sort=name`, { key: browser });
      expect(byName.body.data.map((r: any) => r.id)).toEqual([1, 2, 3, 4, 6, 7, 8, 9]);
      const cheap = await f.pub('GET', '/public/records/items?filter[price][lt]=6&sort=-id', { key: browser });
      expect(cheap.body.data.map((r: any) => r.id)).toEqual([3, 2, 1]);
      // A caller's filter cannot reach past the default filters.
      const hidden = await f.pub('GET', '/public/records/items?filter[name][eq]=Product%20005', { key: browser });
      expect(hidden.body.data).toEqual([]);
      const search = await f.pub('GET', '/public/records/items?search=duct%2024', { key: browser });
      expect(search.body.data.map((r: any) => r.id)).toEqual([249, 248, 247, 246, 244, 243, 242, 241]);
    });

    it('answers the three response shapes', async () => {
      const arr = await f.pub('GET', '/public/records/items-array?limit=3', { key: browser });
      expect(Array.isArray(arr.body)).toBe(true);
      expect(arr.body.map((r: any) => r.id)).toEqual(PUBLISHED.slice(0, 3));
      const next = arr.headers.get('x-next-cursor');
      expect(next).toEqual(expect.any(String));
      const more = await f.pub('GET', `/public/records/items-array?limit=3&cursor=${encodeURIComponent(next!)}`, { key: browser });
      expect(more.body.map((r: any) => r.id)).toEqual(PUBLISHED.slice(3, 6));
      const last = await f.pub('GET', '/public/records/items-array?limit=200', { key: browser });
      expect(last.headers.get('x-next-cursor')).toBeNull();
      const one = await f.pub('GET', '/public/records/item-seven', { key: browser });
      expect(one.body).toMatchObject({ data: { id: 7, name: 'Product 007' } });
      expect(Object.keys(one.body)).toEqual(['data']);
    });
  });

  describe('writes', () => {
    it('creates with defaults and the filter’s values, refuses a row outside the filter', async () => {
      const res = await f.pub('POST', '/public/records/items', { key: browser, body: { values: { name: 'New thing', sku: 'NEW-1', price: '3.20' } } });
      expect(res.status, res.text).toBe(201);
      expect(res.body.data).toMatchObject({ name: 'New thing', sku: 'NEW-1', price: '3.20', published: true });
      expect(Object.keys(res.body.data)).not.toContain('internal_note');
      const stored = await f.db.selectFrom('products').select(['internal_note', 'published']).where('id', '=', res.body.data.id).executeTakeFirst();
      expect(stored?.internal_note).toBe('from the shop');
      const before = await count();
      const outside = await f.pub('POST', '/public/records/items', { key: browser, body: { values: { name: 'Hidden', published: false } } });
      expect(outside.status).toBe(400);
      expect(outside.body.error).toMatchObject({ code: 'PUBLIC_WRITE_REFUSED', params: { reason: 'outside-filter' } });
      expect(await count()).toBe(before);
    });

    it('updates and deletes only rows inside the default filters', async () => {
      const outsideText = (await f.pub('GET', '/public/records/items/5', { key: browser })).text;
      const patch = await f.pub('PATCH', '/public/records/items/10', { key: browser, body: { values: { name: 'Changed' } } });
      expect(patch.status).toBe(404);
      expect(patch.text).toBe(outsideText);
      const del = await f.pub('DELETE', '/public/records/items/15', { key: browser });
      expect(del.text).toBe(outsideText);
      const put = await f.pub('PUT', '/public/records/items/20', { key: browser, body: { values: { name: 'n', sku: 'x', price: 1, published: true } } });
      expect(put.text).toBe(outsideText);
      const rows = await f.db.selectFrom('products').select(['id', 'name']).where('id', 'in', [10, 15, 20]).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 10, name: 'Product 010' },
        { id: 15, name: 'Product 015' },
        { id: 20, name: 'Product 020' },
      ]);
      const ok = await f.pub('PATCH', '/public/records/items/11', { key: browser, body: { values: { name: 'Eleven' } } });
      expect(ok.body.data).toMatchObject({ id: 11, name: 'Eleven', sku: 'SKU-00011' });
      const replaced = await f.pub('PUT', '/public/records/items/12', {
        key: browser,
        body: { values: { name: 'Twelve', sku: 'T-12', price: '1.00', published: true } },
      });
      expect(replaced.body.data).toEqual({ id: 12, name: 'Twelve', sku: 'T-12', price: '1.00', published: true });
      expect((await f.pub('DELETE', '/public/records/items/13', { key: browser })).body).toEqual({ data: {} });
      expect(await f.db.selectFrom('products').select('id').where('id', '=', 13).executeTakeFirst()).toBeUndefined();
    });

    it('writes a batch in one transaction, all or none; updating rows needs PATCH', async () => {
      const before = await count();
      const ok = await f.pub('POST', '/public/records/items/batch', {
        key: server,
        body: {
          rows: [
            { name: 'B1', sku: 'B-1' },
            { name: 'B2', sku: 'B-2' },
            { id: 21, name: 'Twenty-one' },
          ],
        },
      });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body).toEqual({ data: { count: 3 } });
      expect(await count()).toBe(before + 2);
      expect((await f.db.selectFrom('products').select('name').where('id', '=', 21).executeTakeFirst())?.name).toBe('Twenty-one');

      const refused = await f.pub('POST', '/public/records/items/batch', {
        key: server,
        body: {
          rows: [
            { name: 'C1', sku: 'C-1' },
            { name: 'C2', sku: 'B-1' },
            { name: 'C3', sku: 'C-3' },
          ],
        },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'PUBLIC_WRITE_REFUSED', params: { column: 'sku', reason: 'duplicate' } });
      const invalid = await f.pub('POST', '/public/records/items/batch', { key: server, body: { rows: [{ name: 'D1' }, { name: 'D2', price: 'x' }] } });
      expect(invalid.body.error.params).toEqual({ column: 'price', reason: 'format', row: 1 });
      const outside = await f.pub('POST', '/public/records/items/batch', { key: server, body: { rows: [{ name: 'E1' }, { id: 25, name: 'Unpublished' }] } });
      expect(outside.body.error.code).toBe('PUBLIC_REF_NOT_FOUND');
      expect(await count()).toBe(before + 2);

      const noPatch = await f.pub('POST', '/public/records/items/batch', { key: readOnly, body: { rows: [{ name: 'F1' }, { id: 22, name: 'Upsert' }] } });
      expect(noPatch.status).toBe(404);
      expect(noPatch.body.error.code).toBe('PUBLIC_REF_NOT_FOUND');
      const inserts = await f.pub('POST', '/public/records/items/batch', { key: readOnly, body: { rows: [{ name: 'G1' }] } });
      expect(inserts.body).toEqual({ data: { count: 1 } });
      expect(await count()).toBe(before + 3);
      expect((await f.db.selectFrom('products').select('name').where('id', '=', 22).executeTakeFirst())?.name).toBe('Product 022');
    });
  });
}

describe('public records on SQLite', () => records('sqlite'));
describe.runIf(pg)('public records on PostgreSQL', () => records('postgres'));

describe('without SVC_PUBLIC_API_ORIGINS', () => {
  let f: PublicFixture;
  beforeAll(async () => {
    f = await publicFixture('sqlite', { origins: null });
  });
  afterAll(async () => f?.close());

  it('does not serve the public routes: they answer like any unknown path', async () => {
    const client = f.inst.client();
    const send = (method: string, path: string, body?: string) =>
      client.request(method, path, {
        noOrigin: true,
        headers: { authorization: 'Bearer adm_pub_x', origin: ORIGIN, ...(body ? { 'content-type': 'application/json' } : {}) },
        rawBody: body,
      });
    for (const [method, path, body] of [
      ['GET', '/api/v1/public/config', undefined],
      ['GET', '/api/v1/public/records/products', undefined],
      ['POST', '/api/v1/public/claim', '{"ref":"products","values":{}}'],
      ['POST', '/api/v1/public/records/products/batch', '{'],
      ['DELETE', '/api/v1/public/session', undefined],
      ['OPTIONS', '/api/v1/public/records/products', undefined],
    ] as const) {
      const res = await send(method, path, body);
      const unknown = await send(method, path.replace('/public/', '/nothing-here/'), body);
      expect(res.status, `${method} ${path}`).toBe(body === '{' ? 400 : 404);
      expect(res.status).toBe(unknown.status);
      expect({ ...res.body.error, requestId: null }).toEqual({ ...unknown.body.error, requestId: null });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});
