import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { route } from '../../kernel/contract/route.js';
import { dataOf } from '../../kernel/contract/shapes.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { call } from '../../test/helpers/contract.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import type { MetaChoice, TestInstance } from '../../test/helpers/instance.js';
import { activeUser, bearer, bootWithAdmin, issuePaths } from '../../test/helpers/identity.js';

const pg = await databaseAvailable('postgres');

// A data-like permission editors and viewers hold by declaration, to see K3 at work.
const probe = definePlugin({
  name: 'probe',
  version: '1.0.0',
  permissions: [
    { name: 'probe.read', label: 'Read probes', description: 'Read', roles: ['editor', 'viewer'] },
    { name: 'probe.write', label: 'Write probes', description: 'Write', roles: ['editor'] },
  ],
  routes: [
    route({
      method: 'GET',
      url: '/probe',
      summary: 'read',
      permission: 'probe.read',
      schema: { response: { 200: dataOf(z.strictObject({ ok: z.literal(true) })) } },
      handler: () => ({ data: { ok: true as const } }),
    }),
  ],
});

function roleFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let admin: HttpClient;
  beforeAll(async () => ({ inst, admin } = await bootWithAdmin({ meta, plugins: [probe] })));
  afterAll(async () => inst?.close());

  it('lists the built-in roles first, then creates, renames and deletes a custom role', async () => {
    const list = await call(inst, admin, 'GET', '/api/v1/roles');
    expect(list.body.data.roles.map((r: { id: string }) => r.id)).toEqual(['admin', 'editor', 'viewer']);
    expect(list.body.data.roles[0]).toMatchObject({ id: 'admin', name: 'admin', builtin: true });
    expect(list.body.data.nextCursor).toBeNull();

    const created = await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Support', description: 'Answers tickets' });
    expect(created.status).toBe(201);
    const role = created.body.data.role;
    expect(role).toMatchObject({ name: 'Support', description: 'Answers tickets', builtin: false });
    expect(Object.keys(role).sort()).toEqual(['builtin', 'createdAt', 'description', 'id', 'name', 'updatedAt']);

    const renamed = await call(inst, admin, 'PATCH', `/api/v1/roles/${role.id}`, { name: 'Support desk', description: null });
    expect(renamed.body.data.role).toMatchObject({ id: role.id, name: 'Support desk', description: null });
    expect((await call(inst, admin, 'GET', '/api/v1/roles')).body.data.roles.map((r: { id: string }) => r.id)).toEqual(['admin', 'editor', 'viewer', role.id]);

    expect((await call(inst, admin, 'DELETE', `/api/v1/roles/${role.id}`)).body).toEqual({ data: { ok: true } });
    expect((await call(inst, admin, 'DELETE', `/api/v1/roles/${role.id}`)).status).toBe(404);
    const actions = await inst.app.kernel.db.selectFrom('audit_log').select('action').where('target_id', '=', role.id).orderBy('id').execute();
    expect(actions.map((a) => a.action)).toEqual(['roles.create', 'roles.update', 'roles.delete']);
  });

  it('refuses a duplicate name in any letter case, including the built-in names (409)', async () => {
    for (const name of ['ADMIN', 'Viewer']) {
      const res = await call(inst, admin, 'POST', '/api/v1/roles', { name });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'name-taken' } });
    }
    const a = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Twin A' })).body.data.role;
    await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Twin B' });
    expect((await call(inst, admin, 'PATCH', `/api/v1/roles/${a.id}`, { name: 'twin b' })).status).toBe(409);
    expect((await call(inst, admin, 'PATCH', `/api/v1/roles/${a.id}`, { name: 'Twin A' })).status).toBe(200);
  });

  it('keeps built-in roles: no rename, no delete, no chosen grants (409 CONFLICT)', async () => {
    for (const id of ['admin', 'editor', 'viewer']) {
      for (const [method, path, body] of [
        ['PATCH', `/api/v1/roles/${id}`, { name: `my-${id}` }],
        ['DELETE', `/api/v1/roles/${id}`, undefined],
        ['PUT', `/api/v1/roles/${id}/permissions`, { grants: [{ permission: 'probe.read' }] }],
      ] as const) {
        const res = await call(inst, admin, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(409);
        expect(res.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'builtin-role', roleId: id } });
      }
    }
  });

  it('answers the grants built-in roles hold by declaration', async () => {
    const grantsOf = async (id: string) => (await call(inst, admin, 'GET', `/api/v1/roles/${id}/permissions`)).body.data;
    const catalog = inst.app.kernel.permissions.list().map((p) => p.name);
    const adminGrants = await grantsOf('admin');
    expect(adminGrants).toMatchObject({ roleId: 'admin', builtin: true });
    expect(adminGrants.grants.map((g: { permission: string }) => g.permission).sort()).toEqual([...catalog].sort());
    // Whatever the loaded plugins declare for each built-in role, and nothing else.
    const declaredFor = (role: 'editor' | 'viewer') =>
      inst.app.kernel.permissions
        .list()
        .filter((p) => p.roles?.includes(role))
        .map((p) => ({ permission: p.name, scope: null }));
    const sortByName = (list: Array<{ permission: string }>) => [...list].sort((a, b) => a.permission.localeCompare(b.permission));
    const editor = sortByName((await grantsOf('editor')).grants);
    const viewer = sortByName((await grantsOf('viewer')).grants);
    expect(editor).toEqual(sortByName(declaredFor('editor')));
    expect(viewer).toEqual(sortByName(declaredFor('viewer')));
    expect(editor).toEqual(
      expect.arrayContaining([
        { permission: 'probe.read', scope: null },
        { permission: 'probe.write', scope: null },
      ]),
    );
    expect(viewer).toEqual(expect.arrayContaining([{ permission: 'probe.read', scope: null }]));
    expect(viewer).not.toContainEqual({ permission: 'probe.write', scope: null });
  });

  it('stores the grants of a custom role, scoped or not, replacing them whole', async () => {
    const role = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Scoped' })).body.data.role;
    const grants = [
      { permission: 'probe.read', scope: { connectionId: 'c1', table: 'orders', columns: ['id', 'total'] } },
      { permission: 'probe.read', scope: { connectionId: 'c2' } },
      { permission: 'users.read' },
      { permission: 'users.read', scope: null },
    ];
    const put = await call(inst, admin, 'PUT', `/api/v1/roles/${role.id}/permissions`, { grants });
    expect(put.status).toBe(200);
    const expected = [
      { permission: 'probe.read', scope: { connectionId: 'c1', table: 'orders', columns: ['id', 'total'] } },
      { permission: 'probe.read', scope: { connectionId: 'c2' } },
      { permission: 'users.read', scope: null },
    ];
    const sortKey = (g: { permission: string; scope: unknown }) => JSON.stringify(g);
    expect([...put.body.data.grants].sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual(
      expected.sort((a, b) => sortKey(a).localeCompare(sortKey(b))),
    );
    const got = await call(inst, admin, 'GET', `/api/v1/roles/${role.id}/permissions`);
    expect(got.body.data).toMatchObject({ roleId: role.id, builtin: false });
    expect(got.body.data.grants).toHaveLength(3);

    expect((await call(inst, admin, 'PUT', `/api/v1/roles/${role.id}/permissions`, { grants: [] })).body.data.grants).toEqual([]);
    const audit = await inst.app.kernel.db
      .selectFrom('audit_log')
      .select(['action', 'diff'])
      .where('target_id', '=', role.id)
      .where('action', '=', 'roles.grants.set')
      .orderBy('id')
      .execute();
    expect(audit).toHaveLength(2);
    expect(JSON.parse(audit[1]!.diff!).after).toEqual([]);
  });

  it('refuses an unknown permission or a malformed scope, naming the grant (400)', async () => {
    const role = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Validated' })).body.data.role;
    const put = (grants: unknown) => call(inst, admin, 'PUT', `/api/v1/roles/${role.id}/permissions`, { grants });
    const unknown = await put([{ permission: 'probe.read' }, { permission: 'nope.read' }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('VALIDATION_FAILED');
    expect(unknown.body.error.issues).toEqual([expect.objectContaining({ path: 'body.grants.1.permission', code: 'unknown_permission' })]);
    expect(issuePaths(await put([{ permission: 'self' }]))).toEqual(['body.grants.0.permission']);
    expect(issuePaths(await put([{ permission: 'probe.read', scope: { connectionId: 'c', columns: ['a'] } }]))).toEqual(['body.grants.0.scope.columns']);
    expect(issuePaths(await put([{ permission: 'probe.read', scope: { table: 't' } }]))).toContain('body.grants.0.scope.connectionId');
    expect(issuePaths(await put([{ permission: 'probe.read', scope: { connectionId: 'c', where: 'x' } }]))).toContain('body.grants.0.scope');
    expect(issuePaths(await put([{ permission: '' }]))).toEqual(['body.grants.0.permission']);
    // Nothing was stored by the refused requests.
    expect((await call(inst, admin, 'GET', `/api/v1/roles/${role.id}/permissions`)).body.data.grants).toEqual([]);
  });

  it('refuses to delete a role still held by a user or a live key, saying which (409)', async () => {
    const role = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'In use' })).body.data.role;
    await call(inst, admin, 'PUT', `/api/v1/roles/${role.id}/permissions`, { grants: [{ permission: 'probe.read' }] });
    const holder = await activeUser(inst, admin, `holder-${meta}@example.com`, [role.id]);
    const byUser = await call(inst, admin, 'DELETE', `/api/v1/roles/${role.id}`);
    expect(byUser.status).toBe(409);
    expect(byUser.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'role-in-use', users: 1, apiKeys: 0 } });

    await call(inst, admin, 'DELETE', `/api/v1/users/${holder.id}/roles/${role.id}`);
    const key = (await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'k', roleId: role.id })).body.data.apiKey;
    const byKey = await call(inst, admin, 'DELETE', `/api/v1/roles/${role.id}`);
    expect(byKey.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'role-in-use', users: 0, apiKeys: 1 } });

    // A revoked key does not hold the role back.
    await call(inst, admin, 'DELETE', `/api/v1/api-keys/${key.id}`);
    expect((await call(inst, admin, 'DELETE', `/api/v1/roles/${role.id}`)).status).toBe(200);
    expect(await inst.app.kernel.db.selectFrom('role_grants').select('id').where('role_id', '=', role.id).execute()).toEqual([]);
  });

  it("gives a custom role's holder exactly its grants, from the next request on", async () => {
    const role = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Auditors' })).body.data.role;
    const holder = await activeUser(inst, admin, `auditor-${meta}@example.com`, [role.id]);
    expect((await call(inst, holder.client, 'GET', '/api/v1/probe')).status).toBe(403);
    await call(inst, admin, 'PUT', `/api/v1/roles/${role.id}/permissions`, { grants: [{ permission: 'probe.read' }, { permission: 'users.read' }] });
    expect((await call(inst, holder.client, 'GET', '/api/v1/probe')).status).toBe(200);
    expect((await call(inst, holder.client, 'GET', '/api/v1/users')).status).toBe(200);
    const write = await call(inst, holder.client, 'POST', '/api/v1/users', { email: 'x@example.com', name: 'X' });
    expect(write.status).toBe(403);
    expect(write.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'users.write' } });
    expect((await call(inst, holder.client, 'GET', '/api/v1/roles')).body.error.params).toEqual({ permission: 'roles.read' });
  });
}

describe('roles on SQLite', () => roleFlows('sqlite'));
describe.runIf(pg)('roles on PostgreSQL', () => roleFlows('postgres'));

describe('roles: bounds, the catalog, and who may call', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  beforeAll(async () => ({ inst, admin } = await bootWithAdmin({ plugins: [probe] })));
  afterAll(async () => inst?.close());

  it('enforces the field bounds, naming the field; just inside passes', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/v1/roles', { name: '' }, 'body.name'],
      ['POST', '/api/v1/roles', { name: '   ' }, 'body.name'],
      ['POST', '/api/v1/roles', { name: 'n'.repeat(121) }, 'body.name'],
      ['POST', '/api/v1/roles', { name: 'ok', description: 'd'.repeat(501) }, 'body.description'],
      ['POST', '/api/v1/roles', { name: 'ok', builtin: true }, 'body'],
      ['POST', '/api/v1/roles', {}, 'body.name'],
      ['PATCH', '/api/v1/roles/editor', { name: '' }, 'body.name'],
      ['GET', `/api/v1/roles/${'r'.repeat(65)}/permissions`, undefined, 'params.id'],
      ['GET', '/api/v1/roles?limit=501', undefined, 'query.limit'],
      ['GET', '/api/v1/roles?cursor=%%%', undefined, 'query.cursor'],
      ['PUT', '/api/v1/roles/editor/permissions', { grants: {} }, 'body.grants'],
      ['PUT', '/api/v1/roles/editor/permissions', {}, 'body.grants'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await call(inst, admin, method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(issuePaths(res)).toContain(field);
    }
    const inside = await call(inst, admin, 'POST', '/api/v1/roles', { name: 'n'.repeat(120), description: 'd'.repeat(500) });
    expect(inside.status).toBe(201);
    expect((await call(inst, admin, 'POST', '/api/v1/roles', { name: '  padded  ' })).body.data.role.name).toBe('padded');
  });

  it('pages the roles list with an opaque cursor', async () => {
    const all = (await call(inst, admin, 'GET', '/api/v1/roles')).body.data.roles.map((r: { id: string }) => r.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await call(inst, admin, 'GET', `/api/v1/roles?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.body.data.roles.map((r: { id: string }) => r.id));
      cursor = res.body.data.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it("serves the catalog: every loaded plugin's permissions with the built-in roles holding each", async () => {
    const res = await call(inst, admin, 'GET', '/api/v1/permissions/catalog?limit=500');
    const entries = res.body.data.permissions as Array<{ name: string; plugin: string; builtinRoles: string[] }>;
    expect(entries.map((e) => e.name)).toEqual(inst.app.kernel.permissions.list().map((p) => p.name));
    const byName = new Map(entries.map((e) => [e.name, e]));
    expect(byName.get('probe.read')).toEqual({
      name: 'probe.read',
      label: 'Read probes',
      description: 'Read',
      plugin: 'probe',
      builtinRoles: ['admin', 'editor', 'viewer'],
    });
    for (const name of ['roles.read', 'roles.write', 'users.read', 'users.write', 'api-keys.read', 'api-keys.write']) {
      expect(byName.get(name)?.builtinRoles, name).toEqual(['admin']);
    }
    expect(byName.get('users.write')?.plugin).toBe('users');
    expect(byName.has('self')).toBe(false);

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(inst, admin, 'GET', `/api/v1/permissions/catalog?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.body.data.permissions.map((e: { name: string }) => e.name));
      cursor = page.body.data.nextCursor;
    } while (cursor);
    expect(paged).toEqual(entries.map((e) => e.name));
  });

  it('refuses viewers and editors on every roles route (403 naming the permission)', async () => {
    for (const roleId of ['viewer', 'editor']) {
      const u = await activeUser(inst, admin, `${roleId}@example.com`, [roleId]);
      expect((await call(inst, u.client, 'GET', '/api/v1/probe')).status).toBe(200);
      for (const [method, path, body, permission] of [
        ['GET', '/api/v1/roles', undefined, 'roles.read'],
        ['GET', '/api/v1/permissions/catalog', undefined, 'roles.read'],
        ['GET', '/api/v1/roles/viewer/permissions', undefined, 'roles.read'],
        ['POST', '/api/v1/roles', { name: 'Mine' }, 'roles.write'],
        ['PUT', '/api/v1/roles/viewer/permissions', { grants: [] }, 'roles.write'],
      ] as const) {
        const res = await call(inst, u.client, method, path, body);
        expect(res.status, `${roleId} ${method} ${path}`).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission } });
      }
    }
  });

  it('lets a role manager grant only what it holds itself (403 otherwise)', async () => {
    const managers = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Role managers' })).body.data.role;
    await call(inst, admin, 'PUT', `/api/v1/roles/${managers.id}/permissions`, {
      grants: [
        { permission: 'roles.read' },
        { permission: 'roles.write' },
        { permission: 'probe.read', scope: { connectionId: 'c1', table: 't', columns: ['a', 'b'] } },
      ],
    });
    const m = await activeUser(inst, admin, 'role-manager@example.com', [managers.id]);
    const target = (await call(inst, m.client, 'POST', '/api/v1/roles', { name: 'Made by a manager' })).body.data.role;
    const put = (grants: unknown) => call(inst, m.client, 'PUT', `/api/v1/roles/${target.id}/permissions`, { grants });

    expect((await put([{ permission: 'roles.read' }, { permission: 'probe.read', scope: { connectionId: 'c1', table: 't', columns: ['a'] } }])).status).toBe(
      200,
    );
    for (const grants of [
      [{ permission: 'users.write' }],
      [{ permission: 'probe.read' }],
      [{ permission: 'probe.read', scope: { connectionId: 'c2' } }],
      [{ permission: 'probe.read', scope: { connectionId: 'c1', table: 't' } }],
      [{ permission: 'probe.read', scope: { connectionId: 'c1', table: 't', columns: ['a', 'c'] } }],
    ]) {
      const res = await put(grants);
      expect(res.status, JSON.stringify(grants)).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: grants[0]!.permission, reason: 'escalation' } });
    }
    // Its own role too: it cannot widen what it holds.
    expect((await call(inst, m.client, 'PUT', `/api/v1/roles/${managers.id}/permissions`, { grants: [{ permission: 'users.read' }] })).status).toBe(403);
  });

  it('lets an API key with the admin role manage roles, and refuses a viewer key', async () => {
    const adminKey = (await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'admin', roleId: 'admin' })).body.data.secret;
    const viewerKey = (await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'viewer', roleId: 'viewer' })).body.data.secret;
    const c = inst.client();
    expect((await call(inst, c, 'POST', '/api/v1/roles', { name: 'By key' }, bearer(adminKey))).status).toBe(201);
    expect((await call(inst, c, 'GET', '/api/v1/roles', undefined, bearer(viewerKey))).status).toBe(403);
  });
});
