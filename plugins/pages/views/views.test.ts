import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../kernel/api.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { activeUser } from '../../../test/helpers/identity.js';
import type { MetaChoice } from '../../../test/helpers/instance.js';
import { pagesEnv, pagesInUse, type PagesEnv } from '../testing.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

function viewFlows(meta: MetaChoice) {
  let env: PagesEnv;
  let list: any;
  let board: any;

  beforeAll(async () => {
    env = await pagesEnv(meta);
    list = await env.page({ title: 'Products', kind: 'list', connectionId: env.connectionId, table: 'product' });
    board = await env.page({ title: 'Board', kind: 'dashboard' });
  });
  afterAll(async () => env?.close());

  const views = (pageId: string) => `/api/v1/pages/${pageId}/views`;
  const create = (body: object, client = env.editor, pageId = list.id) => env.req(client, 'POST', views(pageId), body);
  const codes = (res: any) => (res.body.error.issues as Array<{ path: string; code: string }>).map((i) => `${i.path}:${i.code}`);

  it('saves views with the grid query, answers them by name, and the default on GET /pages/{pageId}', async () => {
    const cheap = await create({
      name: 'Cheap first',
      query: { sort: 'price,-name', filters: [{ column: 'status', op: 'in', value: 'active,draft' }], columns: ['name', 'price'], columnWidths: { name: 240 } },
    });
    expect(cheap.status, cheap.text).toBe(201);
    expect(cheap.body.data.view).toMatchObject({ name: 'Cheap first', isDefault: false, pageId: list.id, query: { sort: 'price,-name' } });
    const active = await create({ name: 'Active', query: { filters: [{ column: 'status', op: 'eq', value: 'active' }], search: 'anvil' }, isDefault: true });
    expect(active.status, active.text).toBe(201);
    const listed = await env.req(env.viewer, 'GET', views(list.id));
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.views.map((v: { name: string }) => v.name)).toEqual(['Active', 'Cheap first']);
    const page = await env.req(env.viewer, 'GET', `/api/v1/pages/${list.id}`);
    expect(page.body.data.defaultView).toEqual(active.body.data.view);

    // A new default clears the other; one default a page.
    const made = await env.req(env.editor, 'PATCH', `${views(list.id)}/${cheap.body.data.view.id}`, { isDefault: true, name: 'Cheapest' });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data.view).toMatchObject({ name: 'Cheapest', isDefault: true });
    const after = (await env.req(env.viewer, 'GET', views(list.id))).body.data.views;
    expect(after.filter((v: { isDefault: boolean }) => v.isDefault).map((v: { name: string }) => v.name)).toEqual(['Cheapest']);
  });

  it('refuses what the data API refuses, at body.query…: unknown or unreadable columns, an unknown operator, a sort the table cannot take', async () => {
    const unknown = await create({
      name: 'x',
      query: { columns: ['name', 'nope'], filters: [{ column: 'nope', op: 'eq', value: '1' }], columnWidths: { nope: 100 } },
    });
    expect(unknown.status).toBe(400);
    expect(codes(unknown).sort()).toEqual([
      'body.query.columnWidths.nope:unknown-column',
      'body.query.columns.1:unknown-column',
      'body.query.filters.0.column:unknown-column',
    ]);
    // narrow reads name and price: stock answers exactly as nope does.
    const unreadable = await create({ name: 'x', query: { sort: '-stock', filters: [{ column: 'stock', op: 'gt', value: '1' }] } }, env.narrow);
    expect(unreadable.status).toBe(400);
    expect(codes(unreadable).sort()).toEqual(['body.query.filters.0.column:unknown-column', 'body.query.sort:unknown-column']);
    const op = await create({ name: 'x', query: { filters: [{ column: 'name', op: 'contains', value: 'a' }] } });
    expect(op.status).toBe(400);
    expect(op.body.error.issues[0].path).toBe('body.query.filters.0.op');
    const sort = await create({ name: 'x', query: { sort: 'attributes' } });
    expect(sort.status).toBe(400);
    expect(codes(sort)).toEqual(['body.query.sort:invalid']);
    const like = await create({ name: 'x', query: { filters: [{ column: 'price', op: 'like', value: '1%' }] } });
    expect(codes(like)).toEqual(['body.query.filters.0:invalid']);
    expect((await create({ name: 'fine', query: { sort: 'name' } }, env.narrow)).status).toBe(201);
  });

  it('refuses a taken name (any case), a dashboard, the 101st view; 404 for an unknown view', async () => {
    const taken = await create({ name: 'ACTIVE', query: {} });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'name-taken' } });
    const rename = await env.req(env.editor, 'PATCH', `${views(list.id)}/${(await env.req(env.editor, 'GET', views(list.id))).body.data.views[0].id}`, {
      name: 'fine',
    });
    expect(rename.status).toBe(409);
    for (const [method, path, body] of [
      ['GET', views(board.id), undefined],
      ['POST', views(board.id), { name: 'x', query: {} }],
    ] as const) {
      const res = await env.req(env.editor, method, path, body);
      expect(res.status).toBe(400);
      expect(codes(res)).toEqual(['params.pageId:not-a-table-page']);
    }
    expect((await env.req(env.editor, 'PATCH', `${views(list.id)}/nope`, { name: 'y' })).status).toBe(404);
    expect((await env.req(env.editor, 'DELETE', `${views(list.id)}/nope`)).status).toBe(404);
    expect((await env.req(env.viewer, 'POST', views(list.id), { name: 'v', query: {} })).status).toBe(403);
    // A page the caller cannot see reads as missing on every views route.
    const users = await env.page({ title: 'Users', kind: 'list', connectionId: env.connectionId, table: 'user' });
    expect((await env.req(env.narrow, 'GET', views(users.id))).status).toBe(404);
    expect((await env.req(env.narrow, 'POST', views(users.id), { name: 'x', query: {} })).status).toBe(404);

    const other = await env.page({ title: 'Many', kind: 'list', connectionId: env.connectionId, table: 'product' });
    for (let i = 0; i < 100; i++) expect((await create({ name: `v${i}`, query: {} }, env.editor, other.id)).status).toBe(201);
    const full = await create({ name: 'v100', query: {} }, env.editor, other.id);
    expect(full.status).toBe(409);
    expect(full.body.error.params.reason).toBe('too-many-views');
  });

  it('deletes a view, and copies views with the page', async () => {
    const before = (await env.req(env.editor, 'GET', views(list.id))).body.data.views;
    const copy = await env.req(env.editor, 'POST', `/api/v1/pages/${list.id}/duplicate`, {});
    expect(copy.status, copy.text).toBe(201);
    const copied = (await env.req(env.editor, 'GET', views(copy.body.data.page.id))).body.data.views;
    expect(copied.map((v: any) => [v.name, v.isDefault, v.query])).toEqual(before.map((v: any) => [v.name, v.isDefault, v.query]));
    const gone = await env.req(env.editor, 'DELETE', `${views(list.id)}/${before[0].id}`);
    expect(gone.body).toEqual({ data: { ok: true } });
    expect((await env.req(env.editor, 'GET', views(list.id))).body.data.views).toHaveLength(before.length - 1);
  });

  it("another plugin's face: checkView answers the route's refusals as issues, createView makes one, removeMade deletes only what is unchanged", async () => {
    const principalOf = async (email: string, roles: string[]): Promise<Principal> => {
      const { id } = await activeUser(env.inst, env.admin, email, roles);
      const session = await env.inst.app.kernel.identity.createSession(id, { ip: null, userAgent: null });
      return (await env.inst.app.kernel.principals.resolveSession(session.token))!;
    };
    const editor = await principalOf(`face-ed-${meta}@example.com`, ['editor']);
    const viewer = await principalOf(`face-vi-${meta}@example.com`, ['viewer']);
    const good = { pageId: list.id, name: 'Face view', query: { filters: [{ column: 'status', op: 'eq', value: 'active' }] } };
    expect(await env.pages.checkView(editor, good)).toEqual([]);
    const issues = async (proposal: object, who = editor) => (await env.pages.checkView(who, { ...good, ...proposal })).map((i) => `${i.path}:${i.code}`);
    expect(await issues({}, viewer)).toEqual(['pageId:forbidden']);
    expect(await issues({ pageId: 'p_nope' })).toEqual(['pageId:not-found']);
    expect(await issues({ pageId: board.id })).toEqual(['pageId:not-a-table-page']);
    expect(await issues({ query: { filters: [{ column: 'api_token', op: 'eq', value: 'x' }] } })).toEqual(['query.filters.0.column:unknown-column']);
    expect(await issues({ query: { order: 'x' } })).toEqual(['query:unrecognized_keys']);
    expect(await issues({ name: 'CHEAPEST' })).toEqual(['name:name-taken']);

    const view = await env.pages.createView(editor, good);
    expect(view).toMatchObject({ pageId: list.id, name: 'Face view', isDefault: false, updatedAt: expect.any(Number) });
    await expect(env.pages.createView(editor, good)).rejects.toMatchObject({ code: 'CONFLICT', params: { reason: 'name-taken' } });
    await expect(env.pages.createView(viewer, { ...good, name: 'Other' })).rejects.toMatchObject({ code: 'FORBIDDEN' });

    // A view changed since stays; one unchanged goes.
    const made = { pageId: list.id, viewId: view.id, updatedAt: view.updatedAt };
    expect(await env.pages.madeState(made)).toBe('unchanged');
    await new Promise((r) => setTimeout(r, 5));
    await env.req(env.editor, 'PATCH', `${views(list.id)}/${view.id}`, { name: 'Face view (edited)' });
    expect(await env.pages.removeMade(made)).toBe('changed');
    const now = (await env.req(env.editor, 'GET', views(list.id))).body.data.views.find((v: any) => v.id === view.id);
    expect(await env.pages.removeMade({ ...made, updatedAt: now.updatedAt })).toBe('unchanged');
    expect(await env.pages.madeState(made)).toBe('gone');

    // A page: changed when renamed, or when it holds a view its maker did not make; in use while a dependent keeps it.
    const page = await env.page({ title: 'Made by a plugin', kind: 'list', connectionId: env.connectionId, table: 'product' });
    const madePage = { pageId: page.id, updatedAt: page.updatedAt };
    const own = await env.pages.createView(editor, { ...good, pageId: page.id, name: 'Own' });
    expect(await env.pages.madeState(madePage)).toBe('changed');
    expect(await env.pages.madeState(madePage, [own.id])).toBe('unchanged');
    pagesInUse.set(page.id, ['r_1']);
    expect(await env.pages.removeMade(madePage, [own.id])).toBe('in-use');
    pagesInUse.delete(page.id);
    expect(await env.pages.removeMade(madePage, [own.id])).toBe('unchanged');
    expect((await env.req(env.editor, 'GET', `/api/v1/pages/${page.id}`)).status).toBe(404);
  });
}

describe('shared views on SQLite', () => viewFlows('sqlite'));
describe.runIf(pg)('shared views on PostgreSQL', () => viewFlows('postgres'));
describe.runIf(mysql)('shared views on MariaDB', () => viewFlows('mysql'));
