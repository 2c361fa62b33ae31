import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import type { MetaChoice } from '../../../test/helpers/instance.js';
import { pagesEnv, type PagesEnv } from '../testing.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

function layoutFlows(meta: MetaChoice) {
  let env: PagesEnv;
  let board: any;
  let list: any;

  beforeAll(async () => {
    env = await pagesEnv(meta);
    board = await env.page({ title: 'Board', kind: 'dashboard' });
    list = await env.page({ title: 'Products', kind: 'list', connectionId: env.connectionId, table: 'product' });
  });
  afterAll(async () => env?.close());

  const query = () => ({ connectionId: env.connectionId, table: 'product', metric: { op: 'count' } });
  const widget = (id: string, x: number, y: number, w = 4, h = 2) => ({ id, x, y, w, h, title: id, query: query(), viz: { type: 'number', options: {} } });
  const save = (id: string, body: object) => env.req(env.editor, 'PATCH', `/api/v1/pages/${id}/layout`, body);
  const codes = (res: any) => (res.body.error.issues as Array<{ path: string; code: string }>).map((i) => `${i.path}:${i.code}`);

  it('saves the widgets and answers layout.version + 1, then refuses the stale version', async () => {
    const first = await save(board.id, { widgets: [widget('a', 0, 0), widget('b', 4, 0, 8, 3)], version: 0 });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.page.layout).toMatchObject({ version: 1, widgets: [{ id: 'a' }, { id: 'b', w: 8 }] });
    const second = await save(board.id, { widgets: [widget('a', 0, 0, 12, 1)], version: 1 });
    expect(second.status, second.text).toBe(200);
    expect(second.body.data.page.layout.version).toBe(2);
    const stale = await save(board.id, { widgets: [], version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'stale', version: 2 } });
    const got = await env.req(env.viewer, 'GET', `/api/v1/pages/${board.id}`);
    expect(got.body.data.page.layout.widgets).toHaveLength(1);
  });

  it('lets one of two writers of the same version win', async () => {
    const answers = await Promise.all([
      save(board.id, { widgets: [widget('x', 0, 0)], version: 2 }),
      save(board.id, { widgets: [widget('y', 0, 0)], version: 2 }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const won = answers.find((a) => a.status === 200)!.body.data.page.layout;
    const stored = (await env.req(env.editor, 'GET', `/api/v1/pages/${board.id}`)).body.data.page.layout;
    expect(stored).toEqual(won);
    expect(stored.version).toBe(3);
  });

  it('refuses widgets off the grid or on top of each other, 51 widgets, and a page that is no dashboard', async () => {
    const v = (await env.req(env.editor, 'GET', `/api/v1/pages/${board.id}`)).body.data.page.layout.version;
    const bounds = await save(board.id, { widgets: [widget('a', 10, 0, 4, 1), widget('b', -1, 2, 1, 1), widget('c', 0, 3, 0, 1)], version: v });
    expect(bounds.status).toBe(400);
    expect(codes(bounds)).toEqual(['body.widgets.0:layout-bounds', 'body.widgets.1:layout-bounds', 'body.widgets.2:layout-bounds']);
    const overlap = await save(board.id, { widgets: [widget('a', 0, 0, 6, 2), widget('b', 6, 0, 6, 2), widget('c', 5, 1, 2, 2)], version: v });
    expect(overlap.status).toBe(400);
    expect(codes(overlap)).toEqual(['body.widgets.2:layout-overlap']);
    const twice = await save(board.id, { widgets: [widget('a', 0, 0), widget('a', 4, 0)], version: v });
    expect(codes(twice)).toEqual(['body.widgets.1.id:duplicate-id']);
    const many = Array.from({ length: 51 }, (_, i) => widget(`w${i}`, (i % 3) * 4, Math.floor(i / 3) * 2));
    const tooMany = await save(board.id, { widgets: many, version: v });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.issues[0].path).toBe('body.widgets');
    expect((await save(board.id, { widgets: many.slice(0, 50), version: v })).status).toBe(200);
    const notBoard = await save(list.id, { widgets: [], version: 0 });
    expect(notBoard.status).toBe(400);
    expect(codes(notBoard)).toEqual(['params.pageId:not-a-dashboard']);
  });

  it("checks each widget's query by shape, then through the registered check with its path", async () => {
    const v = (await env.req(env.editor, 'GET', `/api/v1/pages/${board.id}`)).body.data.page.layout.version;
    const shape = await save(board.id, { widgets: [{ ...widget('a', 0, 0), query: { table: 'product', metric: { op: 'median' } } }], version: v });
    expect(shape.status).toBe(400);
    expect(
      codes(shape)
        .map((c) => c.split(':')[0])
        .sort(),
    ).toEqual(['body.widgets.0.query.connectionId', 'body.widgets.0.query.metric.op']);
    env.pages.setWidgetQueryCheck(async (_p, q, path) =>
      (q as { metric: { column?: string } }).metric.column === 'secret' ? [{ path: `${path}.metric.column`, code: 'unknown-column', message: 'no' }] : [],
    );
    {
      const checked = await save(board.id, {
        widgets: [widget('a', 0, 0), { ...widget('b', 4, 0), query: { ...query(), metric: { op: 'sum', column: 'secret' } } }],
        version: v,
      });
      expect(checked.status).toBe(400);
      expect(codes(checked)).toEqual(['body.widgets.1.query.metric.column:unknown-column']);
    }
  });

  it('answers 404 for a page the caller cannot see and 403 without pages.write', async () => {
    const hidden = await env.page({ title: 'Hidden', kind: 'dashboard', visibleTo: { roles: ['editor'] } });
    expect((await env.req(env.narrow, 'PATCH', `/api/v1/pages/${hidden.id}/layout`, { widgets: [], version: 0 })).status).toBe(404);
    expect((await env.req(env.viewer, 'PATCH', `/api/v1/pages/${board.id}/layout`, { widgets: [], version: 0 })).status).toBe(403);
  });
}

describe('dashboard layouts on SQLite', () => layoutFlows('sqlite'));
describe.runIf(pg)('dashboard layouts on PostgreSQL', () => layoutFlows('postgres'));
describe.runIf(mysql)('dashboard layouts on MariaDB', () => layoutFlows('mysql'));
