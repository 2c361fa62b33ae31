import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { activeUser, bootWithAdmin, issuePaths, sessionFor } from '../../test/helpers/identity.js';
import { startInstance, type MetaChoice, type TestInstance } from '../../test/helpers/instance.js';
import { availableDialects, dataEnv, type DataEnv } from '../data/testing.js';
import { roleWith } from '../exports/testing.js';
import { searchRows } from './rows.js';

const pg = await databaseAvailable('postgres');

type Group = { type: string; items: Array<{ id: string; title: string; subtitle: string; url: string; score: number }> };

async function search(inst: TestInstance, client: HttpClient, query: string): Promise<{ groups: Group[]; partial: boolean }> {
  const res = await call(inst, client, 'GET', `/api/v1/search?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const titles = (answer: { groups: Group[] }, type: string) => answer.groups.find((g) => g.type === type)?.items.map((i) => i.title) ?? [];
const types = (answer: { groups: Group[] }) => answer.groups.map((g) => g.type);

function nameFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let admin: HttpClient;
  let viewer: HttpClient;
  let reader: HttpClient;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ meta }));
    viewer = (await activeUser(inst, admin, 'vi@example.com', ['viewer'])).client;
    const people = await roleWith(admin, 'Warehouse staff', [{ permission: 'users.read' }, { permission: 'roles.read' }]);
    reader = (await activeUser(inst, admin, 'people@example.com', [people])).client;
    const made = await admin.post('/api/v1/users', {
      email: 'm.thornbury@example.com',
      name: 'Margaret Thornbury',
      roleIds: ['viewer'],
      password: 'long-enough-pw',
    });
    expect(made.status, made.text).toBe(201);
    for (const [title, visibleTo] of [
      ['Quarterly revenue', null],
      ['Editors corner', { roles: ['editor'] }],
    ] as const) {
      const page = await admin.post('/api/v1/pages', { title, kind: 'dashboard', ...(visibleTo ? { visibleTo } : {}) });
      expect(page.status, page.text).toBe(201);
    }
  });
  afterAll(async () => inst?.close());

  it('refuses an empty, blank, too long or NUL-holding q, an unknown type and a limit out of range (400)', async () => {
    const cases: Array<[string, string, string?]> = [
      ['q=', 'query.q'],
      ['', 'query.q'],
      ['q=%20%20', 'query.q', 'blank'],
      [`q=${'a'.repeat(201)}`, 'query.q'],
      ['q=ab%00c', 'query.q', 'nul-character'],
      ['q=abc&types=page,poster', 'query.types', 'unknown-type'],
      ['q=abc&limit=21', 'query.limit'],
      ['q=abc&limit=0', 'query.limit'],
    ];
    for (const [query, path, code] of cases) {
      const res = await call(inst, admin, 'GET', `/api/v1/search?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(issuePaths(res), query).toEqual([path]);
      if (code) expect(res.body.error.issues[0].code).toBe(code);
    }
    // 200 characters is the most q may hold.
    expect((await call(inst, admin, 'GET', `/api/v1/search?q=${'a'.repeat(200)}`)).status).toBe(200);
  });

  it('finds names despite typos and by prefix, best first, with the dashboard path to open', async () => {
    const user = await search(inst, admin, 'q=Margret%20Thornbry&types=user');
    expect(titles(user, 'user')).toEqual(['Margaret Thornbury']);
    expect(user.groups[0]!.items[0]!.url).toMatch(/^\/users\/.+/);
    expect(titles(await search(inst, admin, 'q=warehuose&types=role'), 'role')).toEqual(['Warehouse staff']);
    const page = await search(inst, admin, 'q=quartrly&types=page');
    expect(page.groups).toEqual([{ type: 'page', items: [expect.objectContaining({ title: 'Quarterly revenue', url: '/p/quarterly-revenue' })] }]);
    // A prefix, and e-mails are words too.
    expect(titles(await search(inst, admin, 'q=thorn&types=user'), 'user')).toEqual(['Margaret Thornbury']);
    expect(titles(await search(inst, admin, 'q=m.thornbury@example&types=user'), 'user')).toEqual(['Margaret Thornbury']);
    // Settings screens, by their words.
    const smtp = await search(inst, admin, 'q=smtp&types=setting');
    expect(smtp.groups[0]!.items).toEqual([expect.objectContaining({ title: 'Outgoing e-mail', url: '/settings/email' })]);
  });

  it('shows each type only to whoever may see it: absent otherwise, never a 403', async () => {
    // A viewer: no users, roles or instance settings; the page rule hides the editors' page.
    const v = await search(inst, viewer, 'q=thornbury');
    expect(types(v)).toEqual([]);
    expect(titles(await search(inst, viewer, 'q=warehouse'), 'role')).toEqual([]);
    expect(titles(await search(inst, viewer, 'q=editors'), 'page')).toEqual([]);
    expect(titles(await search(inst, admin, 'q=editors'), 'page')).toEqual(['Editors corner']);
    expect(titles(await search(inst, viewer, 'q=smtp'), 'setting')).toEqual([]);
    // Their own account's screens, yes.
    expect(titles(await search(inst, viewer, 'q=preferences&types=setting'), 'setting')).toEqual(['Preferences']);
    // users.read and roles.read, and nothing else: users and roles, no pages (no pages.read).
    const r = await search(inst, reader, 'q=thornbury');
    expect(types(r)).toEqual(['user']);
    expect(titles(await search(inst, reader, 'q=quarterly'), 'page')).toEqual([]);
    expect(titles(await search(inst, reader, 'q=warehouse'), 'role')).toEqual(['Warehouse staff']);
  });

  it('keeps the index fresh: a renamed page and user are found by their new names at once', async () => {
    expect(titles(await search(inst, admin, 'q=quarterly'), 'page')).toEqual(['Quarterly revenue']);
    const list = await admin.get('/api/v1/pages?q=Quarterly');
    const pageId = list.body.data.pages[0].id as string;
    expect((await admin.patch(`/api/v1/pages/${pageId}`, { title: 'Annual overview' })).status).toBe(200);
    // The slug stays (the page's address), so its words still find it; the new title does too.
    expect(titles(await search(inst, admin, 'q=annual'), 'page')).toEqual(['Annual overview']);

    const users = await admin.get('/api/v1/users?q=thornbury');
    const userId = users.body.data.users[0].id as string;
    expect((await admin.patch(`/api/v1/users/${userId}`, { name: 'Margaret Oakley' })).status).toBe(200);
    expect(titles(await search(inst, admin, 'q=oakley&types=user'), 'user')).toEqual(['Margaret Oakley']);
    const del = await admin.delete(`/api/v1/pages/${pageId}`);
    expect(del.status, del.text).toBe(200);
    expect(titles(await search(inst, admin, 'q=annual'), 'page')).toEqual([]);
  });
}

describe('search names on a SQLite meta store', () => nameFlows('sqlite'));
describe.skipIf(!pg)('search names on a PostgreSQL meta store', () => nameFlows('postgres'));

describe.skipIf(!pg)('search on two replicas sharing a PostgreSQL meta store', () => {
  let a: TestInstance;
  let b: TestInstance;
  let onA: HttpClient;
  let onB: HttpClient;
  beforeAll(async () => {
    const env = { SVC_SECRET: randomBytes(32).toString('hex') };
    let adminId: string;
    ({ inst: a, admin: onA, adminId } = await bootWithAdmin({ meta: 'postgres', env }));
    b = await startInstance({ metaUrl: a.metaUrl!, env });
    onB = await sessionFor(b, adminId);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("sees the other replica's page rename through the bridged pages.changed, and its user rename through the users' stamp", async () => {
    const page = await onA.post('/api/v1/pages', { title: 'Stock levels', kind: 'dashboard' });
    expect(page.status, page.text).toBe(201);
    const made = await onA.post('/api/v1/users', { email: 'h@example.com', name: 'Hildegard Brook', roleIds: ['viewer'], password: 'long-enough-pw' });
    expect(made.status, made.text).toBe(201);
    // Built on A.
    expect(titles(await search(a, onA, 'q=stock'), 'page')).toEqual(['Stock levels']);
    expect(titles(await search(a, onA, 'q=hildegard'), 'user')).toEqual(['Hildegard Brook']);
    // Changed on B.
    expect((await onB.patch(`/api/v1/pages/${page.body.data.page.id}`, { title: 'Inventory levels' })).status).toBe(200);
    expect((await onB.patch(`/api/v1/users/${made.body.data.user.id}`, { name: 'Hildegard Marsh' })).status).toBe(200);
    await expect.poll(async () => titles(await search(a, onA, 'q=inventory'), 'page'), { timeout: 10_000 }).toEqual(['Inventory levels']);
    await expect.poll(async () => titles(await search(a, onA, 'q=marsh'), 'user'), { timeout: 20_000, interval: 500 }).toEqual(['Hildegard Marsh']);
  });
});

const dialects = await availableDialects();

describe.each(dialects)('search rows on a %s connection', (dialect) => {
  let env: DataEnv;
  let viewer: HttpClient;
  const pageIds: Record<string, string> = {};

  beforeAll(async () => {
    // PostgreSQL connections also run on a PostgreSQL meta store; the others on SQLite.
    env = await dataEnv(dialect, { meta: dialect === 'postgres' && pg ? 'postgres' : 'sqlite' });
    await env.seed('category', [
      { id: 1, name: 'Widgets', slug: 'widgets' },
      { id: 2, name: 'Gadgets', slug: 'gadgets' },
    ]);
    await env.seed('product', [
      { id: 1, sku: 'SKU-00000001', name: 'Blue widget', price: '1.00' },
      { id: 2, sku: 'SKU-00000002', name: 'Widget stand', price: '2.00' },
      { id: 3, sku: 'SKU-00000003', name: 'Large 100%_widget', price: '3.00' },
      { id: 4, sku: 'SKU-00000004', name: 'Gadget', price: '4.00' },
    ]);
    const page = async (title: string, table: string, config: object) => {
      const res = await env.req(env.admin, 'POST', '/api/v1/pages', { title, kind: 'list', connectionId: env.connectionId, table, config });
      expect(res.status, res.text).toBe(201);
      pageIds[title] = res.body.data.page.id;
    };
    await page('Products', 'product', { searchable: true, displayColumn: 'name' });
    await page('Product codes', 'product', { searchable: true, displayColumn: 'sku' });
    await page('Categories', 'category', { searchable: true, displayColumn: 'name' });
    await page('Orders', 'order', {});
    // One table, some columns: the id and the name of products.
    const scoped = await roleWith(env.admin, 'Product readers', [
      { permission: 'pages.read' },
      { permission: 'data.read', scope: { connectionId: env.connectionId, table: 'product', columns: ['id', 'name'] } },
    ]);
    viewer = await env.user('scoped@example.com', [scoped]);
  });
  afterAll(async () => env?.close());

  it('finds rows by the display column, prefix matches first, then those containing the text', async () => {
    // A table's first search opens its connection's pool, which a loaded machine may not do
    // within the table's 300 ms (the answer is then partial, as it should be): wait for a whole one.
    await expect.poll(async () => (await search(env.inst, env.admin, 'q=widget&types=row')).partial, { timeout: 20_000 }).toBe(false);
    const answer = await search(env.inst, env.admin, 'q=widget&types=row');
    const rows = answer.groups.find((g) => g.type === 'row')!.items;
    // Prefix first (Widget stand, Widgets), then contains (Blue widget, Large 100%_widget).
    expect(rows.map((r) => r.title)).toEqual(['Widget stand', 'Widgets', 'Blue widget', 'Large 100%_widget']);
    expect(rows[0]).toMatchObject({ id: `${env.connectionId}/product/2`, url: `/connections/${env.connectionId}/tables/product/rows/2` });
    // Through the other page's display column.
    expect(titles(await search(env.inst, env.admin, 'q=SKU-00000003&types=row'), 'row')).toEqual(['SKU-00000003']);
    // `%` and `_` are the caller's text, not wildcards: "100%_" finds the one name holding it, "e_w" none.
    expect(titles(await search(env.inst, env.admin, `q=${encodeURIComponent('100%_')}&types=row`), 'row')).toEqual(['Large 100%_widget']);
    expect(titles(await search(env.inst, env.admin, `q=${encodeURIComponent('e_w')}&types=row`), 'row')).toEqual([]);
  });

  it('shows a viewer with a scoped grant only their table, its pages and its rows by a column they read', async () => {
    const all = await search(env.inst, viewer, 'q=widget');
    expect(titles(all, 'row')).toEqual(['Widget stand', 'Blue widget', 'Large 100%_widget']);
    // The categories' rows and page, the order table: absent.
    expect(titles(await search(env.inst, viewer, 'q=categ'), 'page')).toEqual([]);
    expect(titles(await search(env.inst, viewer, 'q=product'), 'page').sort()).toEqual(['Product codes', 'Products']);
    expect(titles(await search(env.inst, viewer, 'q=order&types=table,page'), 'table')).toEqual([]);
    expect(titles(await search(env.inst, viewer, 'q=product&types=table'), 'table')).toEqual(['Product']);
    expect(titles(await search(env.inst, env.admin, 'q=order&types=table'), 'table')).toEqual(expect.arrayContaining(['Order']));
    // The sku column is not theirs: no row through the codes page, none through the rows' text either.
    expect(titles(await search(env.inst, viewer, 'q=SKU-00000003&types=row'), 'row')).toEqual([]);
    // No connections.read: no connection.
    // (Their table is found by its connection's name in its subtitle.)
    expect(types(await search(env.inst, viewer, 'q=shop'))).toEqual(['table']);
    expect(titles(await search(env.inst, env.admin, 'q=shop&types=connection'), 'connection')).toEqual(['Shop']);
  });

  it('sees a renamed connection and a page made searchable only through the change', async () => {
    const renamed = await env.req(env.admin, 'PATCH', `/api/v1/connections/${env.connectionId}`, { name: 'Emporium' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(titles(await search(env.inst, env.admin, 'q=emporium&types=connection'), 'connection')).toEqual(['Emporium']);
    expect(titles(await search(env.inst, env.admin, 'q=emporium&types=table'), 'table').length).toBeGreaterThan(0);
    // Deleting the page takes the rows of its display column out of search.
    const del = await env.req(env.admin, 'DELETE', `/api/v1/pages/${pageIds['Product codes']}`);
    expect(del.status, del.text).toBe(200);
    expect(titles(await search(env.inst, env.admin, 'q=SKU-00000003&types=row'), 'row')).toEqual([]);
  });

  it('marks the answer partial when the tables run out of time, and leaves their rows out', async () => {
    const kernel = env.inst.app.kernel;
    const table = await env.req(env.admin, 'GET', `/api/v1/connections/${env.connectionId}/schema`);
    expect(table.status, table.text).toBe(200);
    const product = table.body.data.model.tables.find((t: { ref: string }) => t.ref === 'product') ?? null;
    const targets = product
      ? [{ connectionId: env.connectionId, table: product, column: product.columns.find((c: { name: string }) => c.name === 'name') }]
      : [];
    expect(targets.length).toBe(1);
    expect(
      await searchRows(
        kernel,
        targets,
        'widget',
        5,
        () => {
          throw new Error('no SQLite statement runs without time');
        },
        { totalMs: 0 },
      ),
    ).toEqual({ items: [], partial: true });
  });
});
