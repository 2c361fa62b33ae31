import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import type { MetaChoice } from '../../../test/helpers/instance.js';
import { pagesEnv, type PagesEnv } from '../testing.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

function configFlows(meta: MetaChoice) {
  let env: PagesEnv;
  let list: any;
  let users: any;
  let detail: any;
  let board: any;

  beforeAll(async () => {
    env = await pagesEnv(meta);
    list = await env.page({ title: 'Products', kind: 'list', connectionId: env.connectionId, table: 'product' });
    users = await env.page({ title: 'Users', kind: 'list', connectionId: env.connectionId, table: 'user' });
    detail = await env.page({ title: 'User', kind: 'detail', connectionId: env.connectionId, table: 'user' });
    board = await env.page({ title: 'Board', kind: 'dashboard' });
  });
  afterAll(async () => env?.close());

  const patch = (id: string, body: object, client = env.editor) => env.req(client, 'PATCH', `/api/v1/pages/${id}/config`, body);
  const issues = (res: any) => (res.body.error.issues as Array<{ path: string; code: string }>).map((i) => `${i.path}:${i.code}`);

  it("stores a list's config, version 1, with the page's connection and table", async () => {
    const res = await patch(list.id, {
      columns: [{ column: 'name', label: 'Name' }, { column: 'price' }],
      sort: [{ column: 'price', direction: 'desc' }],
      filters: [
        { column: 'status', op: 'eq', value: 'active' },
        { column: 'price', op: 'in', value: '1,2.5' },
      ],
      displayColumn: 'name',
      searchable: true,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.page.config).toEqual({
      version: 1,
      connectionId: env.connectionId,
      table: 'product',
      columns: [{ column: 'name', label: 'Name' }, { column: 'price' }],
      sort: [{ column: 'price', direction: 'desc' }],
      filters: [
        { column: 'status', op: 'eq', value: 'active' },
        { column: 'price', op: 'in', value: '1,2.5' },
      ],
      displayColumn: 'name',
      searchable: true,
    });
    const got = await env.req(env.editor, 'GET', `/api/v1/pages/${list.id}`);
    expect(got.body.data.page.config.searchable).toBe(true);
  });

  it('answers unknown-column alike for a column the table lacks, one the grant leaves out, and a secret one', async () => {
    const missing = await patch(list.id, { columns: [{ column: 'nope' }] });
    expect(missing.status).toBe(400);
    expect(issues(missing)).toEqual(['body.columns.0.column:unknown-column']);
    // narrow reads product's name and price only: stock is as unknown to them as nope.
    const ungranted = await patch(list.id, { columns: [{ column: 'name' }, { column: 'stock' }] }, env.narrow);
    expect(ungranted.status).toBe(400);
    expect(issues(ungranted)).toEqual(['body.columns.1.column:unknown-column']);
    expect(ungranted.body.error.code).toBe('VALIDATION_FAILED');
    const secret = await patch(users.id, { filters: [{ column: 'api_token', op: 'null', value: 'true' }], sort: [{ column: 'api_token', direction: 'asc' }] });
    expect(secret.status).toBe(400);
    expect(issues(secret).sort()).toEqual(['body.filters.0.column:unknown-column', 'body.sort.0.column:unknown-column']);
    expect((await patch(list.id, { displayColumn: 'nope' })).status).toBe(400);
  });

  it("refuses what the data API's grammar refuses: an unknown operator, a bad value, a sort the column cannot take", async () => {
    const op = await patch(list.id, { filters: [{ column: 'status', op: 'regex', value: 'a.*' }] });
    expect(op.status).toBe(400);
    expect(op.body.error.issues[0].path).toBe('body.filters.0.op');
    const value = await patch(list.id, { filters: [{ column: 'price', op: 'gt', value: 'cheap' }] });
    expect(value.status).toBe(400);
    expect(issues(value)).toEqual(['body.filters.0:invalid']);
    const sort = await patch(list.id, {
      sort: [
        { column: 'name', direction: 'asc' },
        { column: 'attributes', direction: 'asc' },
      ],
    });
    expect(sort.status).toBe(400);
    expect(issues(sort)).toEqual(['body.sort.1.column:invalid']);
    const stray = await patch(list.id, { colums: [] });
    expect(stray.status).toBe(400);
    expect(stray.body.error.issues[0].path).toBe('body');
  });

  it('checks detail fields (a secret one only flagged secret), defaults and linked pages', async () => {
    const ok = await patch(detail.id, {
      fields: [
        { column: 'first name', readOnly: false },
        { column: 'api_token', secret: true },
        { column: 'id', readOnly: true },
      ],
      defaults: { is_active: true },
      afterSave: 'detail',
      listPage: users.id,
    });
    expect(ok.status, ok.text).toBe(200);
    const bad = await patch(detail.id, { fields: [{ column: 'api_token' }], defaults: { nope: 1 }, listPage: list.id, afterSave: 'away' });
    expect(bad.status).toBe(400);
    expect(issues(bad).sort()).toEqual(['body.afterSave:invalid_value']);
    const bad2 = await patch(detail.id, { fields: [{ column: 'api_token' }], defaults: { nope: 1, is_active: 'maybe' }, listPage: list.id });
    expect(issues(bad2).sort()).toEqual([
      'body.defaults.is_active:invalid',
      'body.defaults.nope:unknown-column',
      'body.fields.0.column:unknown-column',
      'body.listPage:unknown-page',
    ]);
  });

  it("checks a dashboard's refresh and range", async () => {
    const slow = await patch(board.id, { refreshSeconds: 10 });
    expect(slow.status).toBe(400);
    expect(slow.body.error.issues[0].path).toBe('body.refreshSeconds');
    const ok = await patch(board.id, { refreshSeconds: 60, defaultRange: '7d' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.page.config).toEqual({ version: 1, refreshSeconds: 60, defaultRange: '7d' });
  });

  it('checks the config given to POST /pages at body.config, the table against the effective schema, and the connection', async () => {
    const bad = await env.req(env.editor, 'POST', '/api/v1/pages', {
      title: 'Bad',
      kind: 'list',
      connectionId: env.connectionId,
      table: 'product',
      config: { columns: [{ column: 'nope' }] },
    });
    expect(bad.status).toBe(400);
    expect(issues(bad)).toEqual(['body.config.columns.0.column:unknown-column']);
    const table = await env.req(env.editor, 'POST', '/api/v1/pages', { title: 'No table', kind: 'list', connectionId: env.connectionId, table: 'nope' });
    expect(table.status).toBe(400);
    expect(issues(table)).toEqual(['body.table:unknown-table']);
    const conn = await env.req(env.editor, 'POST', '/api/v1/pages', { title: 'No conn', kind: 'list', connectionId: 'no-such-connection', table: 'product' });
    expect(conn.status).toBe(404);
    expect(conn.body.error.code).toBe('NOT_FOUND');
  });

  it("keeps generation's configs valid (version 1), publishes its pages' events, and never rewrites a page edited since", async () => {
    const publish = vi.spyOn(env.inst.app.kernel.events, 'publish');
    const gen = await env.req(env.admin, 'POST', `/api/v1/connections/${env.connectionId}/generate`, {});
    expect(gen.status, gen.text).toBe(200);
    const created = gen.body.data.created as Array<{ id: string; kind: string }>;
    expect(created.length).toBeGreaterThan(0);
    const kinds = publish.mock.calls.map((c) => c[0]);
    expect(kinds.filter((k) => k === 'pages.changed')).toHaveLength(created.length);
    expect(kinds).toContain('pages.nav.changed');
    publish.mockRestore();
    for (const p of created) {
      const page = (await env.req(env.admin, 'GET', `/api/v1/pages/${p.id}`)).body.data.page;
      expect(page.config.version).toBe(1);
      const again = await patch(page.id, page.config, env.admin);
      expect(again.status, `${page.slug}: ${again.text}`).toBe(200);
    }
    const edited = created.find((p) => p.kind === 'list')!;
    expect((await patch(edited.id, { columns: [{ column: 'id' }] }, env.admin)).status).toBe(200);
    const second = await env.req(env.admin, 'POST', `/api/v1/connections/${env.connectionId}/generate`, {});
    expect(second.body.data.created).toEqual([]);
    const kept = (await env.req(env.admin, 'GET', `/api/v1/pages/${edited.id}`)).body.data.page;
    expect(kept.config.columns).toEqual([{ column: 'id' }]);
  });
}

describe('page configs on SQLite', () => configFlows('sqlite'));
describe.runIf(pg)('page configs on PostgreSQL', () => configFlows('postgres'));
describe.runIf(mysql)('page configs on MariaDB', () => configFlows('mysql'));
