import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../kernel/api.js';
import { activeUser } from '../../test/helpers/identity.js';
import { serviceProbe } from '../../test/helpers/jobs.js';
import { dataRef } from './provides.js';
import { availableDialects, dataEnv, type DataEnv } from './testing.js';

const dialects = await availableDialects();

/** The face other plugins write through (LLM apply): checkChanges, applyChanges, undoChanges. */
describe.each(dialects)('DataProvides changes on %s', (dialect) => {
  let env: DataEnv;
  let editor: Principal;
  let viewer: Principal;
  let productId: string;

  const principalOf = async (email: string, roles: string[]) => {
    const { id } = await activeUser(env.inst, env.admin, email, roles);
    const session = await env.inst.app.kernel.identity.createSession(id, { ip: null, userAgent: null });
    return (await env.inst.app.kernel.principals.resolveSession(session.token))!;
  };
  const probe = serviceProbe(dataRef);
  const data = () => probe.held.service!;

  beforeAll(async () => {
    env = await dataEnv(dialect, { plugins: [probe.plugin] });
    editor = await principalOf('ch-editor@example.com', ['editor']);
    viewer = await principalOf('ch-viewer@example.com', ['viewer']);
    productId = (await env.seed('product', [{ sku: 'CH-1', name: 'Hammer', price: '9.00', stock: 2 }]))[0]!;
  });
  afterAll(async () => {
    await env?.close();
  });

  it('checks without writing: the row now, and what a write would be refused for', async () => {
    const checks = await data().checkChanges(editor, env.connectionId, [
      { table: 'product', op: 'update', recordId: productId!, values: { stock: 5 } },
      { table: 'product', op: 'update', recordId: productId!, values: { stock: 'lots', nope: 1 } },
      { table: 'product', op: 'create', values: { name: 'No sku' } },
      { table: 'product', op: 'delete', recordId: '999999' },
      { table: 'missing', op: 'delete', recordId: '1' },
    ]);
    expect(checks[0]).toEqual({ before: expect.objectContaining({ name: 'Hammer', stock: 2 }), problems: [] });
    expect(checks[1]!.problems.join(' ')).toMatch(/stock/);
    expect(checks[1]!.problems.join(' ')).toMatch(/nope/);
    expect(checks[2]!.problems.join(' ')).toMatch(/sku: A value is required/);
    expect(checks[3]!.problems).toEqual(['No row with this key.']);
    expect(checks[4]!.problems[0]).toMatch(/No table "missing"/);
    const asViewer = await data().checkChanges(viewer, env.connectionId, [{ table: 'product', op: 'update', recordId: productId!, values: { stock: 5 } }]);
    expect(asViewer[0]!.problems).toEqual(['You may not write the table "product".']);
    const row = await env.db.selectFrom('product').select('stock').where('id', '=', Number(productId)).executeTakeFirstOrThrow();
    expect(Number(row.stock)).toBe(2);
  });

  it('applies several tables in one transaction, all or none, and undoes them with one token', async () => {
    const failing = data().applyChanges(
      editor,
      env.connectionId,
      [
        { table: 'category', op: 'create', values: { id: 501, name: 'Tools', slug: 'tools-ch' } },
        { table: 'product', op: 'create', values: { sku: 'CH-1', name: 'Duplicate', price: '1.00' } },
      ],
      { undoTtlMs: 60_000 },
    );
    await expect(failing).rejects.toMatchObject({ code: 'CONFLICT', params: { reason: 'unique', index: 1 } });
    expect(await env.db.selectFrom('category').selectAll().where('slug', '=', 'tools-ch').executeTakeFirst()).toBeUndefined();

    const done = await data().applyChanges(
      editor,
      env.connectionId,
      [
        { table: 'category', op: 'create', values: { id: 502, name: 'Tools', slug: 'tools-ch' } },
        { table: 'product', op: 'update', recordId: productId!, values: { category_id: 502, stock: 7 } },
      ],
      { undoTtlMs: 24 * 3600_000 },
    );
    expect(done.results).toEqual([
      { table: 'category', op: 'create', recordId: '502' },
      { table: 'product', op: 'update', recordId: productId },
    ]);
    expect(done.audit.map((a) => a.table).sort()).toEqual(['category', 'product']);
    await expect(
      data().applyChanges(viewer, env.connectionId, [{ table: 'product', op: 'delete', recordId: productId! }], { undoTtlMs: 1000 }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });

    // A dry run reverts nothing and leaves the token usable.
    const dry = await data().undoChanges(editor, done.undoToken, { anyAuthor: false, dryRun: true });
    expect(dry.results.length).toBeGreaterThan(0);
    expect(await env.db.selectFrom('category').selectAll().where('id', '=', 502).executeTakeFirst()).toBeDefined();
    const undone = await data().undoChanges(editor, done.undoToken, { anyAuthor: false });
    expect(undone.results.map((r) => `${r.table}:${r.op}`)).toEqual(['product:update', 'category:delete']);
    expect(await env.db.selectFrom('category').selectAll().where('id', '=', 502).executeTakeFirst()).toBeUndefined();
    await expect(data().undoChanges(editor, done.undoToken, { anyAuthor: false })).rejects.toMatchObject({ code: 'UNDO_ALREADY_USED' });
  });

  it('an undo meets rows changed since: 409 CONFLICT naming each, nothing reverted', async () => {
    const done = await data().applyChanges(
      editor,
      env.connectionId,
      [
        { table: 'category', op: 'create', values: { id: 503, name: 'Garden', slug: 'garden-ch' } },
        { table: 'product', op: 'update', recordId: productId!, values: { stock: 11 } },
      ],
      { undoTtlMs: 60_000 },
    );
    await env.req(env.admin, 'PATCH', env.path('product', productId!), { values: { stock: 12 } });
    await env.req(env.admin, 'PATCH', env.path('category', '503'), { values: { name: 'Yard' } });
    await expect(data().undoChanges(editor, done.undoToken, { anyAuthor: false })).rejects.toMatchObject({
      code: 'CONFLICT',
      params: {
        reason: 'rows-changed',
        rows: [
          { table: 'product', recordId: productId, reason: 'row-changed' },
          { table: 'category', recordId: '503', reason: 'row-changed' },
        ],
      },
    });
    expect(await env.db.selectFrom('category').selectAll().where('id', '=', 503).executeTakeFirst()).toBeDefined();
    // A dry run answers the same conflicts and keeps the token.
    await expect(data().undoChanges(editor, done.undoToken, { anyAuthor: false, dryRun: true })).rejects.toMatchObject({
      code: 'CONFLICT',
      params: { reason: 'rows-changed' },
    });
    // The same token through /data/undo: the whole change set, conflicts listed.
    const viaRoute = await env.req(env.admin, 'POST', `/api/v1/data/undo/${done.undoToken}`);
    expect(viaRoute.status).toBe(409);
    expect(viaRoute.body.error.params.reason).toBe('rows-changed');
  });
});
