import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePaths } from '../../test/helpers/identity.js';
import { availableDialects, dataEnv, qs, type DataEnv } from './testing.js';

const dialects = await availableDialects();

const NAMES = ['Alpha', 'Beta', 'Gamma'];
const CATEGORIES = Array.from({ length: 37 }, (_, i) => ({ name: NAMES[i % 3]!, slug: `c${i}` }));

const PRODUCTS = Array.from({ length: 25 }, (_, i) => ({
  sku: `SKU-${String(i).padStart(4, '0')}`,
  name: ['Blue widget', 'Red WIDGET', 'Crème brûlée', 'Gadget', 'Plain thing'][i % 5]!,
  description: i % 2 ? `Item ${i} with 50% off` : null,
  price: `${(i % 6) * 10 + 0.5}`.replace(/^(\d+\.\d)$/, '$10'),
  weight_kg: i % 3 === 0 ? null : (i % 4) * 0.5,
  stock: i % 4,
  status: ['draft', 'active', 'archived'][i % 3]!,
  attributes: { n: i, tags: ['a', 'é'] },
}));

type Product = (typeof PRODUCTS)[number] & { id: number };

describe.each(dialects)('reading rows on %s', (dialect) => {
  let env: DataEnv;
  let products: Product[];
  let categoryIds: number[];

  beforeAll(async () => {
    env = await dataEnv(dialect);
    categoryIds = (await env.seed('category', CATEGORIES)).map(Number);
    const ids = await env.seed(
      'product',
      PRODUCTS.map((p, i) => ({ ...p, category_id: i % 4 === 0 ? null : categoryIds[i % 5]! })),
    );
    products = PRODUCTS.map((p, i) => ({ ...p, id: Number(ids[i]) }));
  });
  afterAll(async () => env?.close());

  const list = (table: string, params: Record<string, string | number> = {}) => env.req(env.admin, 'GET', env.path(table) + qs(params));
  const ids = async (params: Record<string, string | number>) => {
    const res = await list('product', { limit: 500, ...params });
    expect(res.status, res.text).toBe(200);
    return res.body.data.rows.map((r: { id: number }) => r.id) as number[];
  };
  const where = (pred: (p: Product) => boolean) => products.filter(pred).map((p) => p.id);

  /** Every page of a list, following nextCursor. */
  async function pageAll(table: string, params: Record<string, string | number>): Promise<Array<Record<string, any>>> {
    const rows: Array<Record<string, any>> = [];
    let cursor: string | null = null;
    for (let n = 0; n < 200; n++) {
      const res = await list(table, { ...params, ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      rows.push(...res.body.data.rows);
      cursor = res.body.data.nextCursor;
      if (!cursor) return rows;
    }
    throw new Error('never ended');
  }

  it('lists by primary key with an exact total, limit and recordIds', async () => {
    const res = await list('product', { limit: 10 });
    expect(res.body.data).toMatchObject({ total: 25, totalExact: true });
    expect(res.body.data.rows.map((r: Product) => r.id)).toEqual(products.slice(0, 10).map((p) => p.id));
    expect(res.body.data.recordIds).toEqual(products.slice(0, 10).map((p) => String(p.id)));
    expect(res.body.data.nextCursor).toEqual(expect.any(String));
    const row = res.body.data.rows[0];
    expect(row).toMatchObject({ sku: 'SKU-0000', price: '0.50', stock: 0, status: 'draft', attributes: { n: 0, tags: ['a', 'é'] }, weight_kg: null });
    expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/);
  });

  it('applies every filter operator', async () => {
    expect(await ids({ 'filter[status][eq]': 'active' })).toEqual(where((p) => p.status === 'active'));
    expect(await ids({ 'filter[status]': 'archived' })).toEqual(where((p) => p.status === 'archived'));
    // ne keeps NULLs: "everything but 0.5" includes the rows without a weight.
    expect(await ids({ 'filter[weight_kg][ne]': '0.5' })).toEqual(where((p) => p.weight_kg !== 0.5));
    expect(await ids({ 'filter[stock][lt]': '2' })).toEqual(where((p) => p.stock < 2));
    expect(await ids({ 'filter[stock][lte]': '2' })).toEqual(where((p) => p.stock <= 2));
    expect(await ids({ 'filter[price][gt]': '20.5' })).toEqual(where((p) => Number(p.price) > 20.5));
    expect(await ids({ 'filter[price][gte]': '20.5' })).toEqual(where((p) => Number(p.price) >= 20.5));
    expect(await ids({ 'filter[stock][in]': '0,3' })).toEqual(where((p) => p.stock === 0 || p.stock === 3));
    expect(await ids({ 'filter[status][in]': 'draft,archived' })).toEqual(where((p) => p.status !== 'active'));
    expect(await ids({ 'filter[name][like]': '%widget' })).toEqual(where((p) => /widget$/i.test(p.name)));
    expect(await ids({ 'filter[name][like]': 'crème%' })).toEqual(where((p) => p.name.startsWith('Crème')));
    // `\%` is a literal percent sign; an unescaped `_` is any one character.
    expect(await ids({ 'filter[description][like]': '%50\\% off' })).toEqual(where((p) => !!p.description));
    expect(await ids({ 'filter[description][like]': '%5_\\% off' })).toEqual(where((p) => !!p.description));
    expect(await ids({ 'filter[description][like]': '%5\\_%' })).toEqual([]);
    expect(await ids({ 'filter[weight_kg][null]': 'true' })).toEqual(where((p) => p.weight_kg === null));
    expect(await ids({ 'filter[weight_kg][null]': 'false' })).toEqual(where((p) => p.weight_kg !== null));
    expect(await ids({ 'filter[category_id][null]': 'true', 'filter[stock][gt]': '0' })).toEqual([]);
    const combined = await list('product', { 'filter[stock][gte]': '1', 'filter[status][ne]': 'draft', limit: 2 });
    expect(combined.body.data.total).toBe(where((p) => p.stock >= 1 && p.status !== 'draft').length);
  });

  it('searches text columns case-insensitively, the pattern taken literally', async () => {
    expect(await ids({ search: 'WIDGET' })).toEqual(where((p) => /widget/i.test(p.name)));
    expect(await ids({ search: '50%' })).toEqual(where((p) => !!p.description));
    expect(await ids({ search: 'brûlée' })).toEqual(where((p) => p.name.includes('brûlée')));
    expect(await ids({ search: '_' })).toEqual([]);
  });

  it('sorts ascending and descending, NULLs last ascending, ties broken by the primary key in the last sort direction', async () => {
    const byWeight = (desc: boolean) =>
      [...products]
        .sort((a, b) => {
          if (a.weight_kg === b.weight_kg) return desc ? b.id - a.id : a.id - b.id;
          const o = a.weight_kg === null ? 1 : b.weight_kg === null ? -1 : a.weight_kg - b.weight_kg;
          return desc ? -o : o;
        })
        .map((p) => p.id);
    expect(await ids({ sort: 'weight_kg' })).toEqual(byWeight(false));
    expect(await ids({ sort: '-weight_kg' })).toEqual(byWeight(true));
    const multi = [...products].sort((a, b) => a.stock - b.stock || Number(b.price) - Number(a.price) || b.id - a.id).map((p) => p.id);
    expect(await ids({ sort: 'stock,-price' })).toEqual(multi);
  });

  it('pages across ties and NULLs with the keyset cursor: every row exactly once, in order', async () => {
    const names = await pageAll('category', { sort: 'name', limit: 4 });
    expect(names.map((r) => r.id)).toEqual(
      CATEGORIES.map((c, i) => ({ ...c, id: categoryIds[i]! }))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id)
        .map((c) => c.id),
    );
    for (const [sort, limit] of [
      ['-weight_kg', 3],
      ['weight_kg,-stock', 4],
      ['-category_id', 5],
      ['status,-price', 2],
    ] as const) {
      const all = await ids({ sort });
      const paged = (await pageAll('product', { sort, limit })).map((r) => r.id);
      expect(paged, sort).toEqual(all);
      expect(new Set(paged).size).toBe(products.length);
    }
  });

  it('answers the chosen fields, the primary key always among them', async () => {
    const res = await list('product', { fields: 'name,price', limit: 1, sort: '-stock' });
    expect(Object.keys(res.body.data.rows[0]).sort()).toEqual(['id', 'name', 'price']);
    const next = await list('product', { fields: 'name', limit: 1, sort: '-stock', cursor: res.body.data.nextCursor });
    expect(next.status).toBe(200);
  });

  it('refuses bad parameters, naming each', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'filter[nope][eq]': '1' }, 'query.filter[nope][eq]'],
      [{ 'filter[stock][has]': '1' }, 'query.filter[stock][has]'],
      [{ 'filter[stock][like]': '1' }, 'query.filter[stock][like]'],
      [{ 'filter[stock][eq]': 'many' }, 'query.filter[stock][eq]'],
      [{ 'filter[attributes][eq]': '{}' }, 'query.filter[attributes][eq]'],
      [{ 'filter[weight_kg][null]': 'maybe' }, 'query.filter[weight_kg][null]'],
      [{ sort: 'attributes' }, 'query.sort'],
      [{ sort: 'nope' }, 'query.sort'],
      [{ fields: 'nope' }, 'query.fields'],
      [{ limit: '0' }, 'query.limit'],
      [{ limit: '501' }, 'query.limit'],
      [{ cursor: 'garbage' }, 'query.cursor'],
      [{ colour: 'red' }, 'query.colour'],
    ];
    for (const [params, path] of cases) {
      const res = await list('product', params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(issuePaths(res)).toContain(path);
    }
    const first = await list('product', { sort: 'name', limit: 2 });
    const otherSort = await list('product', { sort: '-name', cursor: first.body.data.nextCursor });
    expect(otherSort.status).toBe(400);
    expect(issuePaths(otherSort)).toEqual(['query.cursor']);
  });

  it('gets one row; 404 for a missing row or table, 400 for a malformed id', async () => {
    const p = products[3]!;
    const res = await env.req(env.admin, 'GET', env.path('product', String(p.id)));
    expect(res.body.data).toMatchObject({ recordId: String(p.id), row: { id: p.id, sku: p.sku, name: p.name } });
    expect((await env.req(env.admin, 'GET', env.path('product', '999999'))).status).toBe(404);
    expect((await env.req(env.admin, 'GET', env.path('no_such_table'))).body.error.code).toBe('NOT_FOUND');
    const bad = await env.req(env.admin, 'GET', env.path('product', 'abc'));
    expect(bad.status).toBe(400);
    expect(issuePaths(bad)).toEqual(['params.recordId']);
  });

  it('reads views, without record ids, paging by offset', async () => {
    const all = await pageAll('active_product', { limit: 3, sort: 'id' });
    expect(all.map((r) => r.id)).toEqual(where((p) => p.status === 'active'));
    const res = await list('active_product', { limit: 2 });
    expect(res.body.data.recordIds).toEqual([null, null]);
  });

  it('lists which rows point at a row, per inbound foreign key, in one query each', async () => {
    const target = categoryIds[1]!;
    const child = await env.seed('category', [{ name: 'Child', slug: 'child', parent_id: target }]);
    const res = await env.req(env.admin, 'GET', env.path('category', String(target), 'references'));
    expect(res.status, res.text).toBe(200);
    const byTable = Object.fromEntries(res.body.data.references.map((r: { table: string }) => [r.table, r]));
    expect(Object.keys(byTable).sort()).toEqual(['category', 'product']);
    expect(byTable.category).toMatchObject({ columns: ['parent_id'], referencedColumns: ['id'], onDelete: 'set null', count: 1, recordIds: child });
    const pointing = products.filter((_, i) => i % 4 !== 0 && categoryIds[i % 5] === target).map((p) => String(p.id));
    expect(byTable.product).toMatchObject({ columns: ['category_id'], count: pointing.length, recordIds: pointing.slice(0, 5) });
    expect((await env.req(env.admin, 'GET', env.path('category', '999999', 'references'))).status).toBe(404);
  });

  it('answers 409 SCHEMA_OUT_OF_DATE when the database lost a column since introspection, until it is introspected again', async () => {
    await sql`alter table review drop column body`.execute(env.db);
    const stale = await list('review');
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('SCHEMA_OUT_OF_DATE');
    expect((await env.req(env.admin, 'POST', `/api/v1/connections/${env.connectionId}/introspect`)).status).toBe(200);
    expect((await list('review')).status).toBe(200);
  });
});

describe.each(dialects)('a column called __proto__ on %s', (dialect) => {
  let env: DataEnv;
  beforeAll(async () => {
    env = await dataEnv(dialect);
    const q = dialect === 'mysql' ? '`' : '"';
    await sql
      .raw(`create table odd_names (id integer primary key, ${q}__proto__${q} varchar(20), ${q}constructor${q} varchar(20), label varchar(20))`)
      .execute(env.db);
    await sql.raw(`insert into odd_names values (1, 'proto value', 'ctor value', 'one')`).execute(env.db);
    expect((await env.req(env.admin, 'POST', `/api/v1/connections/${env.connectionId}/introspect`)).status).toBe(200);
  });
  afterAll(async () => env?.close());

  it('is answered like any other column in lists, single rows and write answers', async () => {
    const want = { id: 1, label: 'one', constructor: 'ctor value' };
    const list = await env.req(env.admin, 'GET', env.path('odd_names'));
    expect(list.status, list.text).toBe(200);
    expect(list.text).toContain('"__proto__":"proto value"');
    expect(Object.getOwnPropertyDescriptor(list.body.data.rows[0], '__proto__')?.value).toBe('proto value');
    expect(list.body.data.rows[0]).toMatchObject(want);
    const one = await env.req(env.admin, 'GET', env.path('odd_names', '1'));
    expect(one.text).toContain('"__proto__":"proto value"');
    const patched = await env.req(env.admin, 'PATCH', env.path('odd_names', '1'), { values: { label: 'uno' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.text).toContain('"__proto__":"proto value"');
  });
});
