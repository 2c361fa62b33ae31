import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { issuePaths } from '../../test/helpers/identity.js';
import { availableDialects, dataEnv, qs, type DataEnv } from './testing.js';

const dialects = await availableDialects();

const OVERRIDES = {
  tables: [
    {
      table: 'user',
      columns: [
        { column: 'email', personal: true },
        { column: 'api_token', secret: true },
      ],
    },
    { table: 'product', columns: [{ column: 'description', hidden: true }] },
  ],
};

describe.each(dialects)('who reads and writes what on %s', (dialect) => {
  let env: DataEnv;
  let productIds: string[];
  let userIds: string[];
  /** product: read name and price, write price only. */
  let narrow: HttpClient;
  /** user: read id, email (personal) and "first name". */
  let listed: HttpClient;
  /** user: the whole table. */
  let tableWide: HttpClient;
  /** another connection only. */
  let elsewhere: HttpClient;
  let viewer: HttpClient;

  const role = async (name: string, grants: unknown[]) => {
    const created = await env.req(env.admin, 'POST', '/api/v1/roles', { name });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.role.id as string;
    const set = await env.req(env.admin, 'PUT', `/api/v1/roles/${id}/permissions`, { grants });
    expect(set.status, set.text).toBe(200);
    return id;
  };

  beforeAll(async () => {
    env = await dataEnv(dialect);
    const put = await env.req(env.admin, 'PUT', `/api/v1/connections/${env.connectionId}/schema/overrides`, OVERRIDES);
    expect(put.status, put.text).toBe(200);
    productIds = await env.seed('product', [
      { sku: 'A-1', name: 'Anvil', price: '10.00', stock: 3, description: 'heavy' },
      { sku: 'B-1', name: 'Bucket', price: '5.00', stock: 1, description: 'light' },
    ]);
    userIds = await env.seed('user', [{ email: 'ann@example.com', 'first name': 'Ann', api_token: '11111111-2222-3333-4444-555555555555' }]);
    const c = env.connectionId;
    narrow = await env.user('narrow@example.com', [
      await role('Narrow', [
        { permission: 'data.read', scope: { connectionId: c, table: 'product', columns: ['name', 'price'] } },
        { permission: 'data.write', scope: { connectionId: c, table: 'product', columns: ['price'] } },
      ]),
    ]);
    listed = await env.user('listed@example.com', [
      await role('Listed', [{ permission: 'data.read', scope: { connectionId: c, table: 'user', columns: ['id', 'email', 'first name'] } }]),
    ]);
    tableWide = await env.user('wide@example.com', [await role('Wide', [{ permission: 'data.read', scope: { connectionId: c, table: 'user' } }])]);
    elsewhere = await env.user('elsewhere@example.com', [
      await role('Elsewhere', [{ permission: 'data.read', scope: { connectionId: '00000000000000000000000000' } }]),
    ]);
    viewer = await env.user('viewer@example.com', ['viewer']);
  });
  afterAll(async () => env?.close());

  const get = (client: HttpClient, table: string, params: Record<string, string> = {}) => env.req(client, 'GET', env.path(table) + qs(params));

  it('never answers secret columns; answers hidden ones; personal ones to unscoped readers', async () => {
    for (const client of [env.admin, viewer]) {
      const users = await get(client, 'user');
      expect(users.body.data.rows[0]).toMatchObject({ email: 'ann@example.com', 'first name': 'Ann' });
      expect(users.body.data.rows[0]).not.toHaveProperty('api_token');
      expect((await get(client, 'product')).body.data.rows[0].description).toBe('heavy');
    }
    const secretFilter = await get(env.admin, 'user', { 'filter[api_token][null]': 'false' });
    expect(issuePaths(secretFilter)).toEqual(['query.filter[api_token][null]']);
  });

  it('answers only the granted columns, the key included, and refuses filters and sorts on the others', async () => {
    const res = await get(narrow, 'product');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.rows).toEqual([
      { id: Number(productIds[0]), name: 'Anvil', price: '10.00' },
      { id: Number(productIds[1]), name: 'Bucket', price: '5.00' },
    ]);
    const one = await env.req(narrow, 'GET', env.path('product', productIds[0]!));
    expect(one.body.data.row).toEqual({ id: Number(productIds[0]), name: 'Anvil', price: '10.00' });

    for (const [params, path] of [
      [{ 'filter[stock][gt]': '1' }, 'query.filter[stock][gt]'],
      [{ 'filter[description][null]': 'true' }, 'query.filter[description][null]'],
      [{ sort: '-stock' }, 'query.sort'],
      [{ fields: 'name,sku' }, 'query.fields'],
    ] as const) {
      const refused = await get(narrow, 'product', params);
      expect(refused.status, JSON.stringify(params)).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
      expect(issuePaths(refused)).toEqual([path]);
    }
    expect((await get(narrow, 'product', { 'filter[price][gt]': '6', sort: '-name' })).body.data.rows.map((r: { name: string }) => r.name)).toEqual(['Anvil']);
    // search looks only where the caller may read: "heavy" is in description.
    expect((await get(narrow, 'product', { search: 'heavy' })).body.data.total).toBe(0);
    expect((await get(narrow, 'product', { search: 'anv' })).body.data.total).toBe(1);
  });

  it('answers 404 for a table or connection no grant reaches', async () => {
    for (const [client, table] of [
      [narrow, 'user'],
      [narrow, 'no_such_table'],
      [listed, 'product'],
      [elsewhere, 'product'],
    ] as const) {
      const res = await get(client, table);
      expect(res.status, table).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await env.req(narrow, 'GET', env.path('user', userIds[0]!))).status).toBe(404);
  });

  it('answers personal columns to a table-wide grant, not to a column list', async () => {
    const listedRow = (await get(listed, 'user')).body.data.rows[0];
    expect(listedRow).toEqual({ id: Number(userIds[0]), 'first name': 'Ann' });
    expect(issuePaths(await get(listed, 'user', { 'filter[email][like]': '%ann%' }))).toEqual(['query.filter[email][like]']);
    const wideRow = (await get(tableWide, 'user')).body.data.rows[0];
    expect(wideRow).toMatchObject({ id: Number(userIds[0]), email: 'ann@example.com', 'first name': 'Ann' });
    expect(wideRow).not.toHaveProperty('api_token');
  });

  it('writes only granted columns; a reader without data.write gets 403', async () => {
    const ok = await env.req(narrow, 'PATCH', env.path('product', productIds[1]!), { values: { price: '6.00' } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.row).toEqual({ id: Number(productIds[1]), name: 'Bucket', price: '6.00' });
    const refused = await env.req(narrow, 'PATCH', env.path('product', productIds[1]!), { values: { name: 'Pail', stock: 9 } });
    expect(refused.status).toBe(400);
    expect(issuePaths(refused).sort()).toEqual(['body.values.name', 'body.values.stock']);
    expect((await env.req(narrow, 'DELETE', env.path('category', '1'))).status).toBe(404);
    const wholeRow = await env.req(narrow, 'DELETE', env.path('product', productIds[1]!));
    expect(wholeRow.status).toBe(403);
    expect(wholeRow.body.error.params).toMatchObject({ permission: 'data.write', reason: 'columns' });
    const readOnlyCaller = await env.req(tableWide, 'PATCH', env.path('user', userIds[0]!), { values: { 'first name': 'Anne' } });
    expect(readOnlyCaller.status).toBe(403);
    // The undo of the narrow caller's write runs under its own grants.
    expect((await env.req(narrow, 'POST', `/api/v1/data/undo/${ok.body.data.undoToken}`)).status).toBe(200);
  });

  it('lists only the references a caller could follow', async () => {
    await env.seed('address', [{ user_id: Number(userIds[0]), line1: '1 rue', city: 'Paris' }]);
    const all = await env.req(env.admin, 'GET', env.path('user', userIds[0]!, 'references'));
    expect(all.body.data.references.find((r: { table: string }) => r.table === 'address')).toMatchObject({ count: 1 });
    const limited = await env.req(tableWide, 'GET', env.path('user', userIds[0]!, 'references'));
    expect(limited.status).toBe(200);
    expect(limited.body.data.references).toEqual([]);
  });
});
