import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { issuePaths, openEvents, type SseStream } from '../../test/helpers/identity.js';
import { availableDialects, compositeId, dataEnv, qs, type DataEnv } from './testing.js';

const dialects = await availableDialects();

describe.each(dialects)('writing rows on %s', (dialect) => {
  let env: DataEnv;
  let editor: HttpClient;
  let otherEditor: HttpClient;
  let viewer: HttpClient;
  let events: SseStream;
  let shift = 0;
  let userId: number;

  beforeAll(async () => {
    env = await dataEnv(dialect, { now: () => Date.now() + shift });
    editor = await env.user('editor@example.com', ['editor']);
    otherEditor = await env.user('editor2@example.com', ['editor']);
    viewer = await env.user('viewer@example.com', ['viewer']);
    events = await openEvents(env.inst, viewer);
    userId = Number((await env.seed('user', [{ email: 'owner@example.com' }]))[0]);
  });
  afterAll(async () => {
    events?.close();
    await env?.close();
  });

  const req = (client: HttpClient, method: string, path: string, body?: unknown) => env.req(client, method, path, body);
  const undo = (client: HttpClient, token: string) => req(client, 'POST', `/api/v1/data/undo/${token}`);
  const count = async (table: string, params: Record<string, string> = {}) =>
    (await req(env.admin, 'GET', env.path(table) + qs({ limit: 1, ...params }))).body.data.total as number;
  let skus = 0;
  const product = async (client: HttpClient = editor, extra: Record<string, unknown> = {}) => {
    const res = await req(client, 'POST', env.path('product'), { values: { sku: `W-${++skus}`, name: `Product ${skus}`, price: '10.00', ...extra } });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { row: Record<string, any>; recordId: string; undoToken: string };
  };

  it('creates a row and answers it as stored, defaults and generated columns included', async () => {
    const p = await product();
    expect(p.row).toMatchObject({ name: expect.any(String), price: '10.00', stock: 0, status: 'draft', description: null });
    expect(p.row.created_at).toEqual(expect.any(String));
    const order = await req(editor, 'POST', env.path('order'), { values: { user_id: userId, placed_on: '2024-05-01' } });
    const item = await req(editor, 'POST', env.path('order_item'), {
      values: { order_id: order.body.data.row.id, line_no: 1, product_id: p.row.id, quantity: 3, unit_price: '2.50' },
    });
    expect(item.status, item.text).toBe(201);
    expect(item.body.data.row).toMatchObject({ quantity: 3, unit_price: '2.50', line_total: '7.50' });
    expect(item.body.data.recordId).toBe(compositeId(order.body.data.row.id, 1));
  });

  it('changes and deletes a row by a composite key', async () => {
    const p = await product();
    const order = (await req(editor, 'POST', env.path('order'), { values: { user_id: userId, placed_on: '2024-05-02' } })).body.data.row;
    await req(editor, 'POST', env.path('order_item'), { values: { order_id: order.id, line_no: 7, product_id: p.row.id, unit_price: '1.00' } });
    const id = compositeId(order.id, 7);
    const patched = await req(editor, 'PATCH', env.path('order_item', id), { values: { quantity: 4 } });
    expect(patched.body.data.row).toMatchObject({ order_id: order.id, line_no: 7, quantity: 4, line_total: '4.00' });
    const deleted = await req(editor, 'DELETE', env.path('order_item', id));
    expect(deleted.body.data).toEqual({ recordId: id, undoToken: expect.any(String) });
    expect((await req(editor, 'GET', env.path('order_item', id))).status).toBe(404);
    expect((await req(editor, 'DELETE', env.path('order_item', id))).status).toBe(404);
  });

  it('undoes an update, then undoes the undo; a token works once', async () => {
    const p = await product();
    const edit = await req(editor, 'PATCH', env.path('product', p.recordId), { values: { price: '99.99', name: 'Renamed' } });
    expect(edit.body.data.row).toMatchObject({ price: '99.99', name: 'Renamed' });

    const undone = await undo(editor, edit.body.data.undoToken);
    expect(undone.status, undone.text).toBe(200);
    expect(undone.body.data.results).toEqual([{ op: 'update', recordId: p.recordId, row: expect.objectContaining({ price: '10.00', name: p.row.name }) }]);
    expect((await req(editor, 'GET', env.path('product', p.recordId))).body.data.row).toMatchObject({ price: '10.00', name: p.row.name });

    const again = await undo(editor, edit.body.data.undoToken);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('UNDO_ALREADY_USED');

    const redo = await undo(editor, undone.body.data.undoToken);
    expect(redo.status, redo.text).toBe(200);
    expect((await req(editor, 'GET', env.path('product', p.recordId))).body.data.row).toMatchObject({ price: '99.99', name: 'Renamed' });
  });

  it('refuses an undo when the row changed since (409), but not for a change to other columns', async () => {
    const p = await product();
    const first = await req(editor, 'PATCH', env.path('product', p.recordId), { values: { price: '11.00' } });
    await req(otherEditor, 'PATCH', env.path('product', p.recordId), { values: { price: '12.00' } });
    const refused = await undo(editor, first.body.data.undoToken);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'row-changed', table: 'product', recordId: p.recordId } });
    expect((await req(editor, 'GET', env.path('product', p.recordId))).body.data.row.price).toBe('12.00');

    const second = await req(editor, 'PATCH', env.path('product', p.recordId), { values: { stock: 5 } });
    await req(otherEditor, 'PATCH', env.path('product', p.recordId), { values: { name: 'Other column' } });
    expect((await undo(editor, second.body.data.undoToken)).status).toBe(200);
    expect((await req(editor, 'GET', env.path('product', p.recordId))).body.data.row).toMatchObject({ stock: 0, name: 'Other column', price: '12.00' });
  });

  it('undoes a create (409 once the row was edited) and a delete, which comes back with its key', async () => {
    const a = await product();
    expect((await undo(editor, a.undoToken)).body.data.results).toEqual([{ op: 'delete', recordId: a.recordId, row: null }]);
    expect((await req(editor, 'GET', env.path('product', a.recordId))).status).toBe(404);

    const b = await product();
    await req(editor, 'PATCH', env.path('product', b.recordId), { values: { stock: 9 } });
    expect((await undo(editor, b.undoToken)).body.error.params.reason).toBe('row-changed');

    // order.id is GENERATED ALWAYS AS IDENTITY on PostgreSQL: the undo must still restore the same id.
    const order = (await req(editor, 'POST', env.path('order'), { values: { user_id: userId, placed_on: '2024-05-03', note: 'bring back' } })).body.data;
    const deleted = await req(editor, 'DELETE', env.path('order', order.recordId));
    const restored = await undo(editor, deleted.body.data.undoToken);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.data.results[0]).toMatchObject({ op: 'create', recordId: order.recordId, row: order.row });
    expect((await req(editor, 'GET', env.path('order', order.recordId))).body.data.row).toEqual(order.row);
    // Re-deleting through the undo's own token.
    expect((await undo(editor, restored.body.data.undoToken)).status).toBe(200);
    expect((await req(editor, 'GET', env.path('order', order.recordId))).status).toBe(404);
  });

  it('lets only the author or an admin undo, and only for ten minutes', async () => {
    const p = await product();
    const edit = await req(editor, 'PATCH', env.path('product', p.recordId), { values: { stock: 1 } });
    const foreign = await undo(otherEditor, edit.body.data.undoToken);
    expect(foreign.status).toBe(403);
    expect((await undo(env.admin, edit.body.data.undoToken)).status).toBe(200);

    const late = await req(editor, 'PATCH', env.path('product', p.recordId), { values: { stock: 2 } });
    shift += 10 * 60_000 + 1000;
    try {
      const expired = await undo(editor, late.body.data.undoToken);
      expect(expired.status).toBe(409);
      expect(expired.body.error.code).toBe('UNDO_EXPIRED');
    } finally {
      shift = 0;
    }
    expect((await undo(editor, 'no-such-token')).status).toBe(404);
  });

  it('applies a bulk in one transaction and undoes it with one token', async () => {
    const keep = await product();
    const gone = await product();
    const res = await req(editor, 'POST', env.path('product', 'bulk'), {
      operations: [
        { op: 'create', values: { sku: 'BULK-1', name: 'Bulk one', price: '1.00' } },
        { op: 'create', values: { sku: 'BULK-2', name: 'Bulk two', price: '2.00' } },
        { op: 'update', recordId: keep.recordId, values: { stock: 42 } },
        { op: 'delete', recordId: gone.recordId },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.results.map((r: { op: string }) => r.op)).toEqual(['create', 'create', 'update', 'delete']);
    expect(res.body.data.results[2].row.stock).toBe(42);
    const created = res.body.data.results.slice(0, 2).map((r: { recordId: string }) => r.recordId);

    const undone = await undo(editor, res.body.data.undoToken);
    expect(undone.status, undone.text).toBe(200);
    for (const id of created) expect((await req(editor, 'GET', env.path('product', id))).status).toBe(404);
    expect((await req(editor, 'GET', env.path('product', keep.recordId))).body.data.row.stock).toBe(0);
    expect((await req(editor, 'GET', env.path('product', gone.recordId))).status).toBe(200);
  });

  it('writes nothing of a bulk when one operation fails, and names it', async () => {
    const before = await count('product');
    const existing = await product();
    const dup = await req(editor, 'POST', env.path('product', 'bulk'), {
      operations: [
        { op: 'create', values: { sku: 'ATOM-1', name: 'Atom', price: '1.00' } },
        { op: 'update', recordId: existing.recordId, values: { stock: 7 } },
        { op: 'create', values: { sku: existing.row.sku, name: 'Duplicate sku', price: '1.00' } },
      ],
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'unique', index: 2 } });
    const invalid = await req(editor, 'POST', env.path('product', 'bulk'), {
      operations: [
        { op: 'create', values: { sku: 'ATOM-2', name: 'Atom', price: '1.00' } },
        { op: 'update', recordId: existing.recordId, values: { price: 'free' } },
      ],
    });
    expect(invalid.status).toBe(400);
    expect(issuePaths(invalid)).toEqual(['body.operations.1.values.price']);
    const missing = await req(editor, 'POST', env.path('product', 'bulk'), {
      operations: [
        { op: 'create', values: { sku: 'ATOM-3', name: 'Atom', price: '1.00' } },
        { op: 'delete', recordId: '999999' },
      ],
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.params).toEqual({ index: 1 });
    expect(await count('product')).toBe(before + 1);
    expect(await count('product', { 'filter[sku][like]': 'ATOM-%' })).toBe(0);
    expect((await req(editor, 'GET', env.path('product', existing.recordId))).body.data.row.stock).toBe(0);
  });

  it('answers database refusals: a foreign key (409) and a check (400)', async () => {
    const order = await req(editor, 'POST', env.path('order'), { values: { user_id: 999999, placed_on: '2024-05-04' } });
    expect(order.status).toBe(409);
    expect(order.body.error.params.reason).toBe('foreign-key');
    const owner = (await req(editor, 'POST', env.path('order'), { values: { user_id: userId, placed_on: '2024-05-04' } })).body.data;
    expect(owner.row.id).toEqual(expect.any(Number));
    const restrict = await req(editor, 'DELETE', env.path('user', String(userId)));
    expect(restrict.status).toBe(409);
    expect(restrict.body.error.params.reason).toBe('foreign-key');
    const negative = await req(editor, 'POST', env.path('product'), { values: { sku: 'NEG', name: 'Negative', price: '-1.00' } });
    expect(negative.status).toBe(400);
    expect(negative.body.error).toMatchObject({ code: 'DATA_REFUSED', params: { reason: 'check' } });
  });

  it('refuses a viewer (403), views and tables without a key, and read-only connections', async () => {
    const p = await product();
    for (const [method, path, body] of [
      ['POST', env.path('product'), { values: { sku: 'V', name: 'V', price: '1' } }],
      ['PATCH', env.path('product', p.recordId), { values: { stock: 1 } }],
      ['DELETE', env.path('product', p.recordId), undefined],
      ['POST', env.path('product', 'bulk'), { operations: [{ op: 'delete', recordId: p.recordId }] }],
      ['POST', `/api/v1/data/undo/${p.undoToken}`, undefined],
    ] as const) {
      const res = await req(viewer, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect((await req(viewer, 'GET', env.path('product', p.recordId))).status).toBe(200);

    const view = await req(editor, 'POST', env.path('active_product'), { values: { name: 'x' } });
    expect(view.body.error).toMatchObject({ code: 'TABLE_READ_ONLY', params: { reason: 'view' } });

    const readOnly = await env.connect('Shop (read-only)', { readOnly: true });
    const path = (...rest: string[]) => ['/api/v1/data', readOnly, ...rest].map((s, i) => (i ? encodeURIComponent(s) : s)).join('/');
    const refused = await req(editor, 'PATCH', path('product', p.recordId), { values: { stock: 3 } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONNECTION_READ_ONLY');
    expect((await req(editor, 'POST', path('product', 'bulk'), { operations: [{ op: 'delete', recordId: p.recordId }] })).body.error.code).toBe(
      'CONNECTION_READ_ONLY',
    );
    expect((await req(editor, 'GET', path('product', p.recordId))).body.data.row.stock).toBe(0);
  });

  it('tells other browsers on data.changed, for writes and undos', async () => {
    const p = await product(env.admin);
    const created = await events.waitFor((e) => e.kind === 'data.changed' && e.data.op === 'create' && e.data.recordIds.includes(p.recordId));
    expect(created.data).toEqual({ connectionId: env.connectionId, table: 'product', recordIds: [p.recordId], op: 'create' });
    const edit = await req(env.admin, 'PATCH', env.path('product', p.recordId), { values: { stock: 8 } });
    await events.waitFor((e) => e.kind === 'data.changed' && e.data.op === 'update' && e.data.recordIds.includes(p.recordId));
    await undo(env.admin, edit.body.data.undoToken);
    await events.waitFor((e) => e.kind === 'data.changed' && e.data.op === 'undo' && e.data.recordIds.includes(p.recordId));
  });

  it('audits writes, secret columns redacted', async () => {
    const overrides = await req(env.admin, 'PUT', `/api/v1/connections/${env.connectionId}/schema/overrides`, {
      tables: [{ table: 'setting', columns: [{ column: 'value', secret: true }] }],
    });
    expect(overrides.status, overrides.text).toBe(200);
    const created = await req(editor, 'POST', env.path('setting'), { values: { key: 'smtp', value: 'hunter2', updated_on: '2024-01-01' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.row).toEqual({ key: 'smtp', updated_on: '2024-01-01' });
    const patched = await req(editor, 'PATCH', env.path('setting', 'smtp'), { values: { value: 'hunter3' } });
    expect(patched.body.data.row).toEqual({ key: 'smtp', updated_on: '2024-01-01' });
    const trail = await req(env.admin, 'GET', '/api/v1/audit' + qs({ action: 'data.', limit: 100 }));
    const entries = trail.body.data.entries.filter((e: { diff: any }) => e.diff?.table === 'setting');
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['data.update', 'data.create']);
    expect(entries[1].diff.changes[0]).toMatchObject({ op: 'create', recordId: 'smtp', after: { key: 'smtp', value: '[redacted]', updated_on: '2024-01-01' } });
    expect(entries[0].diff.changes[0]).toEqual({ op: 'update', recordId: 'smtp', before: { value: '[redacted]' }, after: { value: '[redacted]' } });
    expect(JSON.stringify(trail.body)).not.toContain('hunter');
    // The secret was written, and undo restores it even though nobody can read it.
    expect((await undo(editor, patched.body.data.undoToken)).status).toBe(200);
  });
});
