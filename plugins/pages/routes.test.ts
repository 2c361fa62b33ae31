import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { activeUser, issuePaths } from '../../test/helpers/identity.js';
import type { MetaChoice, TestInstance } from '../../test/helpers/instance.js';
import { roleWith } from '../exports/testing.js';
import { meDb } from '../me/tables.js';
import { pagesDb } from './tables.js';
import { pagesEnv, pagesInUse, type PagesEnv } from './testing.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

function pageFlows(meta: MetaChoice) {
  let env: PagesEnv;
  let inst: TestInstance;
  let admin: HttpClient;
  let editor: HttpClient;
  let viewer: HttpClient;
  /** Holds pages.read and nothing else: no data.read, so no table page. */
  let reader: HttpClient;
  let readerRole: string;

  beforeAll(async () => {
    env = await pagesEnv(meta);
    ({ inst, admin } = env);
    editor = env.editor;
    viewer = env.viewer;
    readerRole = await roleWith(admin, 'Page readers', [{ permission: 'pages.read' }]);
    reader = (await activeUser(inst, admin, 're@example.com', [readerRole])).client;
  });
  afterAll(async () => env?.close());

  const create = (client: HttpClient, body: object) => call(inst, client, 'POST', '/api/v1/pages', body);
  const listSlugs = async (client: HttpClient, query = '') => {
    const res = await call(inst, client, 'GET', `/api/v1/pages${query}`);
    expect(res.status, res.text).toBe(200);
    return (res.body.data.pages as Array<{ slug: string }>).map((p) => p.slug);
  };

  it('creates pages (201) with a slug made from the title and made free, and reads one back', async () => {
    const a = await create(editor, { title: 'Sales board', kind: 'dashboard', icon: 'chart' });
    expect(a.status, a.text).toBe(201);
    expect(a.body.data.page).toMatchObject({
      slug: 'sales-board',
      title: 'Sales board',
      kind: 'dashboard',
      icon: 'chart',
      connectionId: null,
      table: null,
      config: {},
      layout: null,
      visibleTo: null,
      generatedKey: null,
    });
    expect(a.body.data.page.createdBy).toEqual(expect.any(String));
    const b = await create(editor, { title: 'Sales Board!', kind: 'dashboard' });
    expect(b.body.data.page.slug).toBe('sales-board-2');
    const got = await call(inst, viewer, 'GET', `/api/v1/pages/${a.body.data.page.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ page: a.body.data.page, defaultView: null, myLayout: null });
  });

  it('refuses custom pages, table pages without their table, a taken slug and a viewer', async () => {
    const custom = await create(editor, { title: 'Mine', kind: 'custom' });
    expect(custom.status).toBe(400);
    expect(custom.body.error.issues).toEqual([expect.objectContaining({ path: 'body.kind', code: 'kind-reserved' })]);
    const bare = await create(editor, { title: 'Orders', kind: 'list' });
    expect(bare.status).toBe(400);
    expect(issuePaths(bare).sort()).toEqual(['body.connectionId', 'body.table']);
    const taken = await create(editor, { title: 'Other', slug: 'sales-board', kind: 'dashboard' });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'slug-taken' } });
    const badRole = await create(editor, { title: 'Roles', kind: 'dashboard', visibleTo: { roles: ['no-such-role'] } });
    expect(badRole.status).toBe(400);
    expect(issuePaths(badRole)).toEqual(['body.visibleTo.roles.0']);
    expect((await create(viewer, { title: 'Nope', kind: 'dashboard' })).status).toBe(403);
    const badQuery = await call(inst, viewer, 'GET', '/api/v1/pages?kind=poster');
    expect(badQuery.status).toBe(400);
  });

  it('shows a page only to the roles in visibleTo (admin sees all), and a table page only with a data.read grant', async () => {
    const editorsOnly = await create(editor, { title: 'Editors only', kind: 'dashboard', visibleTo: { roles: ['editor'] } });
    expect(editorsOnly.status, editorsOnly.text).toBe(201);
    const table = await create(editor, { title: 'Orders', kind: 'list', connectionId: env.connectionId, table: 'order' });
    expect(table.status, table.text).toBe(201);
    const ids = { hidden: editorsOnly.body.data.page.id, table: table.body.data.page.id };

    expect(await listSlugs(editor)).toEqual(expect.arrayContaining(['editors-only', 'orders']));
    expect(await listSlugs(admin)).toEqual(expect.arrayContaining(['editors-only', 'orders']));
    expect(await listSlugs(viewer)).not.toContain('editors-only');
    expect(await listSlugs(viewer)).toContain('orders');
    expect(await listSlugs(reader)).not.toContain('orders');
    expect(await listSlugs(reader)).toContain('sales-board');

    // Not visible reads as missing, for every route about one page.
    for (const [client, id] of [
      [viewer, ids.hidden],
      [reader, ids.table],
    ] as const) {
      const res = await call(inst, client, 'GET', `/api/v1/pages/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await call(inst, viewer, 'GET', '/api/v1/pages/nope')).status).toBe(404);

    // Opening it to the reader's role shows it to them; the table rule still hides the table page.
    const opened = await call(inst, editor, 'PATCH', `/api/v1/pages/${ids.hidden}`, { visibleTo: { roles: ['editor', readerRole] } });
    expect(opened.status, opened.text).toBe(200);
    expect(await listSlugs(reader)).toContain('editors-only');
    expect((await call(inst, viewer, 'GET', `/api/v1/pages/${ids.hidden}`)).status).toBe(404);
  });

  it('filters by kind, connection and title, and pages with a cursor in nav order', async () => {
    expect(await listSlugs(editor, '?kind=list')).toEqual(['orders']);
    expect(await listSlugs(editor, `?connectionId=${env.connectionId}`)).toEqual(['orders']);
    expect(await listSlugs(editor, '?q=BOARD')).toEqual(['sales-board', 'sales-board-2']);
    for (let i = 0; i < 5; i++) expect((await create(editor, { title: `Extra ${i}`, kind: 'dashboard' })).status).toBe(201);
    /** Every page the client sees, `limit` at a time through the cursors. */
    const paged = async (client: HttpClient, limit: number) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await call(inst, client, 'GET', `/api/v1/pages?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.pages.length).toBeLessThanOrEqual(limit);
        seen.push(...res.body.data.pages.map((p: { slug: string }) => p.slug));
        cursor = res.body.data.nextCursor;
      } while (cursor);
      return seen;
    };
    expect(await paged(editor, 3)).toEqual(await listSlugs(editor, '?limit=500'));
    // The viewer's pages skip the hidden one and lose none around it.
    const viewerAll = await listSlugs(viewer, '?limit=500');
    expect(viewerAll).not.toContain('editors-only');
    expect(await paged(viewer, 1)).toEqual(viewerAll);

    for (const bad of ['garbage', Buffer.from(JSON.stringify({ id: 'x' })).toString('base64url')]) {
      const res = await call(inst, editor, 'GET', `/api/v1/pages?cursor=${bad}`);
      expect(res.status).toBe(400);
      expect(issuePaths(res)).toEqual(['query.cursor']);
    }
  });

  it('changes, duplicates and deletes a page, audited', async () => {
    const source = (await create(editor, { title: 'Source', kind: 'dashboard', config: { refreshSeconds: 60 } })).body.data.page;
    const patched = await call(inst, editor, 'PATCH', `/api/v1/pages/${source.id}`, { title: 'Renamed', icon: null });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.page).toMatchObject({ title: 'Renamed', slug: 'source', icon: null });
    const clash = await call(inst, editor, 'PATCH', `/api/v1/pages/${source.id}`, { slug: 'sales-board' });
    expect(clash.status).toBe(409);
    expect(clash.body.error.params.reason).toBe('slug-taken');
    expect((await call(inst, editor, 'PATCH', `/api/v1/pages/${source.id}`, {})).status).toBe(400);

    const copy = await call(inst, editor, 'POST', `/api/v1/pages/${source.id}/duplicate`, {});
    expect(copy.status, copy.text).toBe(201);
    expect(copy.body.data.page).toMatchObject({
      title: 'Renamed (copy)',
      slug: 'renamed-copy',
      kind: 'dashboard',
      config: { refreshSeconds: 60 },
      generatedKey: null,
    });
    expect(copy.body.data.page.id).not.toBe(source.id);
    const named = await call(inst, editor, 'POST', `/api/v1/pages/${source.id}/duplicate`, { slug: 'source' });
    expect(named.status).toBe(409);

    const gone = await call(inst, editor, 'DELETE', `/api/v1/pages/${source.id}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ data: { ok: true } });
    expect((await call(inst, editor, 'GET', `/api/v1/pages/${source.id}`)).status).toBe(404);
    expect((await call(inst, editor, 'DELETE', `/api/v1/pages/${source.id}`)).status).toBe(404);

    const audit = await admin.get('/api/v1/audit?limit=500');
    expect(audit.status, audit.text).toBe(200);
    const actions = (audit.body.data.entries as Array<{ action: string; target: { id: string } | null }>)
      .filter((e) => e.target?.id === source.id)
      .map((e) => e.action);
    expect(actions.sort()).toEqual(['pages.create', 'pages.delete', 'pages.update']);
  });

  it('deletes a page with its shared views and every user’s layout of it in one go, refused with PAGE_IN_USE while a dependent uses it', async () => {
    const page = (await create(editor, { title: 'Doomed', kind: 'list', connectionId: env.connectionId, table: 'product' })).body.data.page;
    expect((await call(inst, editor, 'POST', `/api/v1/pages/${page.id}/views`, { name: 'All', query: {}, isDefault: true })).status).toBe(201);
    for (const client of [editor, viewer])
      expect((await call(inst, client, 'PUT', `/api/v1/me/views/${page.id}/layout`, { layout: { a: 1 } })).status).toBe(200);
    // ME6 amended: a layout only of a page the caller sees.
    expect((await call(inst, reader, 'PUT', `/api/v1/me/views/${page.id}/layout`, { layout: { a: 1 } })).status).toBe(404);
    expect((await call(inst, editor, 'PUT', '/api/v1/me/views/no-such-page/layout', { layout: { a: 1 } })).status).toBe(404);

    const db = inst.app.kernel.db;
    const kept = async () => ({
      views: (await pagesDb(db).selectFrom('page_views').select('id').where('page_id', '=', page.id).execute()).length,
      layouts: (await meDb(db).selectFrom('user_layouts').select('user_id').where('page_id', '=', page.id).execute()).length,
    });
    expect(await kept()).toEqual({ views: 1, layouts: 2 });

    pagesInUse.set(page.id, ['report-1']);
    const used = await call(inst, editor, 'DELETE', `/api/v1/pages/${page.id}`);
    expect(used.status).toBe(409);
    expect(used.body.error).toMatchObject({ code: 'PAGE_IN_USE', params: { reports: ['report-1'] } });
    expect(await kept()).toEqual({ views: 1, layouts: 2 });
    pagesInUse.delete(page.id);

    expect((await call(inst, editor, 'DELETE', `/api/v1/pages/${page.id}`)).status).toBe(200);
    expect(await kept()).toEqual({ views: 0, layouts: 0 });
  });

  it("removes a connection's pages with their views and layouts", async () => {
    const other = await env.connect('Other');
    const page = (await create(editor, { title: 'Elsewhere', kind: 'list', connectionId: other, table: 'product' })).body.data.page;
    expect((await call(inst, editor, 'POST', `/api/v1/pages/${page.id}/views`, { name: 'All', query: {} })).status).toBe(201);
    expect((await call(inst, editor, 'PUT', `/api/v1/me/views/${page.id}/layout`, { layout: { a: 1 } })).status).toBe(200);
    expect((await call(inst, admin, 'DELETE', `/api/v1/connections/${other}`)).status).toBe(200);
    const db = inst.app.kernel.db;
    expect(await pagesDb(db).selectFrom('pages').select('id').where('id', '=', page.id).execute()).toEqual([]);
    expect(await pagesDb(db).selectFrom('page_views').select('id').where('page_id', '=', page.id).execute()).toEqual([]);
    expect(await meDb(db).selectFrom('user_layouts').select('user_id').where('page_id', '=', page.id).execute()).toEqual([]);
  });
}

describe('pages routes on SQLite', () => pageFlows('sqlite'));
describe.runIf(pg)('pages routes on PostgreSQL', () => pageFlows('postgres'));
describe.runIf(mysql)('pages routes on MariaDB', () => pageFlows('mysql'));
