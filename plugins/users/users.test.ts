import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/helpers/contract.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import type { MetaChoice, TestInstance } from '../../test/helpers/instance.js';
import { newId } from '../../kernel/ids.js';
import { hashToken, randomToken } from '../../kernel/identity/tokens.js';
import { activeUser, bearer, bootWithAdmin, issuePaths } from '../../test/helpers/identity.js';

async function creatorlessKey(inst: TestInstance, roleId: string): Promise<string> {
  const secret = `adm_sk_${randomToken(32)}`;
  await inst.app.kernel.db
    .insertInto('api_keys')
    .values({
      id: newId(),
      name: 'race',
      role_id: roleId,
      prefix: secret.slice(0, 12),
      key_hash: hashToken(secret),
      created_by: null,
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return secret;
}

const pg = await databaseAvailable('postgres');

/** The flows that touch transactions and locking run on both meta stores. */
function userFlows(meta: MetaChoice) {
  const opened: TestInstance[] = [];
  const boot = async () => {
    const booted = await bootWithAdmin({ meta });
    opened.push(booted.inst);
    return booted;
  };
  afterEach(async () => {
    for (const i of opened.splice(0)) await i.close();
  });

  it('creates an active user with a password, then reads, changes and deletes it', async () => {
    const { inst, admin } = await boot();
    const created = await call(inst, admin, 'POST', '/api/v1/users', { email: 'Ann@Example.com', name: 'Ann', password: 'ann-password', roleIds: ['editor'] });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data)).toEqual(['user']);
    const user = created.body.data.user;
    expect(user).toMatchObject({ email: 'ann@example.com', name: 'Ann', status: 'active', totpEnabled: false, lastLoginAt: null });
    const row = await inst.app.kernel.db.selectFrom('users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);

    const one = await call(inst, admin, 'GET', `/api/v1/users/${user.id}`);
    expect(one.body.data).toEqual({ user, roleIds: ['editor'] });

    const patched = await call(inst, admin, 'PATCH', `/api/v1/users/${user.id}`, { name: 'Ann B', email: 'ann.b@example.com' });
    expect(patched.body.data.user).toMatchObject({ name: 'Ann B', email: 'ann.b@example.com' });
    expect(patched.body.data.user.updatedAt).toBeGreaterThanOrEqual(user.updatedAt);

    expect((await call(inst, admin, 'DELETE', `/api/v1/users/${user.id}`)).body).toEqual({ data: { ok: true } });
    expect((await call(inst, admin, 'GET', `/api/v1/users/${user.id}`)).status).toBe(404);
    const audit = await inst.app.kernel.db.selectFrom('audit_log').select(['action', 'target_id']).where('target_id', '=', user.id).orderBy('id').execute();
    expect(audit.map((a) => a.action)).toEqual(['users.create', 'users.update', 'users.delete']);
  });

  it('refuses a second user with the same e-mail in any letter case (409 CONFLICT)', async () => {
    const { inst, admin } = await boot();
    expect((await call(inst, admin, 'POST', '/api/v1/users', { email: 'dup@example.com', name: 'One' })).status).toBe(201);
    const again = await call(inst, admin, 'POST', '/api/v1/users', { email: 'DUP@example.com', name: 'Two' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'email-taken' } });
    const other = await call(inst, admin, 'POST', '/api/v1/users', { email: 'other@example.com', name: 'Three' });
    const clash = await call(inst, admin, 'PATCH', `/api/v1/users/${other.body.data.user.id}`, { email: 'Dup@Example.com' });
    expect(clash.status).toBe(409);
    // Two racing creations: one wins, the other answers 409, never 500.
    const race = await Promise.all([1, 2].map(() => admin.post('/api/v1/users', { email: 'race@example.com', name: 'Race' })));
    expect(race.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it('assigns roles (add, replace, remove) and notifies the user each time', async () => {
    const { inst, admin } = await boot();
    const u = await activeUser(inst, admin, 'roles@example.com', []);
    const added = await call(inst, admin, 'POST', `/api/v1/users/${u.id}/roles`, { roleIds: ['viewer', 'editor', 'viewer'] });
    expect(added.status).toBe(200);
    expect(added.body.data.roleIds).toEqual(['editor', 'viewer']);
    expect((await call(inst, admin, 'POST', `/api/v1/users/${u.id}/roles`, { roleIds: ['viewer'] })).body.data.roleIds).toEqual(['editor', 'viewer']);
    expect((await call(inst, admin, 'PUT', `/api/v1/users/${u.id}/roles`, { roleIds: ['viewer'] })).body.data.roleIds).toEqual(['viewer']);
    expect((await call(inst, admin, 'DELETE', `/api/v1/users/${u.id}/roles/viewer`)).body.data.roleIds).toEqual([]);
    const notHeld = await call(inst, admin, 'DELETE', `/api/v1/users/${u.id}/roles/viewer`);
    expect(notHeld.status).toBe(404);
    const unknown = await call(inst, admin, 'PUT', `/api/v1/users/${u.id}/roles`, { roleIds: ['viewer', 'no-such-role'] });
    expect(unknown.status).toBe(400);
    expect(issuePaths(unknown)).toEqual(['body.roleIds.1']);

    // Three changes, three notifications; the unchanged add sent none.
    const notes = await inst.app.kernel.db.selectFrom('notifications').select(['kind', 'body']).where('user_id', '=', u.id).orderBy('id').execute();
    expect(notes.map((n) => n.kind)).toEqual(['users.roles-changed', 'users.roles-changed', 'users.roles-changed']);
    expect(notes[0]!.body).toContain('editor, viewer');
    expect(notes[2]!.body).toMatch(/no longer hold any role/);
    const actions = await inst.app.kernel.db
      .selectFrom('audit_log')
      .select(['action', 'diff'])
      .where('target_id', '=', u.id)
      .where('action', 'like', 'users.roles.%')
      .orderBy('id')
      .execute();
    expect(actions.map((a) => a.action)).toEqual(['users.roles.add', 'users.roles.add', 'users.roles.set', 'users.roles.remove']);
    expect(JSON.parse(actions[2]!.diff!)).toEqual({ before: ['editor', 'viewer'], after: ['viewer'] });
  });

  it('protects the last active admin from deletion, suspension and demotion (409 CONFLICT)', async () => {
    const { inst, admin, adminId } = await boot();
    // An invited admin is not an active one.
    await call(inst, admin, 'POST', '/api/v1/users', { email: 'invited-admin@example.com', name: 'Later', roleIds: ['admin'] });
    const attempts: Array<[string, string, unknown]> = [
      ['DELETE', `/api/v1/users/${adminId}`, undefined],
      ['PATCH', `/api/v1/users/${adminId}`, { status: 'suspended' }],
      ['PUT', `/api/v1/users/${adminId}/roles`, { roleIds: ['viewer'] }],
      ['PUT', `/api/v1/users/${adminId}/roles`, { roleIds: [] }],
      ['DELETE', `/api/v1/users/${adminId}/roles/admin`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(inst, admin, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'last-admin', userId: adminId } });
      expect(res.body.error.message).toMatch(/last active admin/);
    }
    const still = await call(inst, admin, 'GET', `/api/v1/users/${adminId}`);
    expect(still.body.data).toMatchObject({ user: { status: 'active' }, roleIds: ['admin'] });
    // Adding a role to the last admin is fine; so is demoting once another admin is active.
    expect((await call(inst, admin, 'PUT', `/api/v1/users/${adminId}/roles`, { roleIds: ['admin', 'editor'] })).status).toBe(200);
    await activeUser(inst, admin, 'second-admin@example.com', ['admin']);
    expect((await call(inst, admin, 'PUT', `/api/v1/users/${adminId}/roles`, { roleIds: ['editor'] })).status).toBe(200);
  });

  it('lets exactly one of two simultaneous demotions of the last two admins through', async () => {
    const { inst, admin, adminId } = await boot();
    const second = await activeUser(inst, admin, 'second@example.com', ['admin']);
    // Keys with no creator act with their role whatever happens to the users, so both requests pass authorisation.
    const keys = [await creatorlessKey(inst, 'admin'), await creatorlessKey(inst, 'admin')];
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all([
        inst.client().request('PUT', `/api/v1/users/${adminId}/roles`, { body: { roleIds: [] }, headers: bearer(keys[0]!) }),
        inst.client().request('PUT', `/api/v1/users/${second.id}/roles`, { body: { roleIds: [] }, headers: bearer(keys[1]!) }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const admins = await inst.app.kernel.db.selectFrom('user_roles').select('user_id').where('role_id', '=', 'admin').execute();
      expect(admins).toHaveLength(1);
      // Restore both for the next round.
      const demoted = results[0]!.status === 200 ? adminId : second.id;
      expect((await inst.client().request('PUT', `/api/v1/users/${demoted}/roles`, { body: { roleIds: ['admin'] }, headers: bearer(keys[0]!) })).status).toBe(
        200,
      );
    }
    // The same holds for a suspension racing a deletion.
    const results = await Promise.all([
      inst.client().request('PATCH', `/api/v1/users/${adminId}`, { body: { status: 'suspended' }, headers: bearer(keys[0]!) }),
      inst.client().request('DELETE', `/api/v1/users/${second.id}`, { headers: bearer(keys[1]!) }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it("suspension ends the user's session and stops their API keys on the next request", async () => {
    const { inst, admin } = await boot();
    const s = await activeUser(inst, admin, 'suspended@example.com', ['admin']);
    const key = (await call(inst, s.client, 'POST', '/api/v1/api-keys', { name: 'theirs', roleId: 'viewer' })).body.data.secret as string;
    const probe = inst.client();
    expect((await s.client.get('/api/v1/users')).status).toBe(200);
    expect((await probe.get('/api/v1/settings/defaults', { headers: bearer(key) })).status).toBe(200);

    const suspended = await call(inst, admin, 'PATCH', `/api/v1/users/${s.id}`, { status: 'suspended' });
    expect(suspended.body.data.user.status).toBe('suspended');
    const bySession = await s.client.get('/api/v1/users');
    expect(bySession.status).toBe(401);
    expect(bySession.body.error.code).toBe('AUTH_SESSION_INVALID');
    const byKey = await probe.get('/api/v1/settings/defaults', { headers: bearer(key) });
    expect(byKey.status).toBe(401);
    expect(byKey.body.error.code).toBe('AUTH_KEY_INVALID');
    expect(await inst.app.kernel.db.selectFrom('sessions').select('id').where('user_id', '=', s.id).execute()).toEqual([]);

    // Reactivated: the key works again; the ended session stays ended.
    await call(inst, admin, 'PATCH', `/api/v1/users/${s.id}`, { status: 'active' });
    expect((await probe.get('/api/v1/settings/defaults', { headers: bearer(key) })).status).toBe(200);
    expect((await s.client.get('/api/v1/users')).status).toBe(401);

    // Deleted: the keys they made are revoked, so they leave the list too.
    await call(inst, admin, 'DELETE', `/api/v1/users/${s.id}`);
    expect((await probe.get('/api/v1/settings/defaults', { headers: bearer(key) })).status).toBe(401);
    expect((await call(inst, admin, 'GET', '/api/v1/api-keys')).body.data.apiKeys).toEqual([]);
  });

  it('answers 404 NOT_FOUND for an unknown user id on every route', async () => {
    const { inst, admin } = await boot();
    const id = '01zzzzzzzzzzzzzzzzzzzzzzzz';
    const routes: Array<[string, string, unknown]> = [
      ['GET', `/api/v1/users/${id}`, undefined],
      ['PATCH', `/api/v1/users/${id}`, { name: 'x' }],
      ['DELETE', `/api/v1/users/${id}`, undefined],
      ['POST', `/api/v1/users/${id}/invite/resend`, undefined],
      ['POST', `/api/v1/users/${id}/roles`, { roleIds: ['viewer'] }],
      ['PUT', `/api/v1/users/${id}/roles`, { roleIds: [] }],
      ['DELETE', `/api/v1/users/${id}/roles/viewer`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(inst, admin, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });
}

describe('users on SQLite', () => userFlows('sqlite'));
describe.runIf(pg)('users on PostgreSQL', () => userFlows('postgres'));

describe('users: bounds, lists and who may call', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let adminId: string;
  beforeAll(async () => ({ inst, admin, adminId } = await bootWithAdmin()));
  afterAll(async () => inst?.close());

  it('enforces the field bounds on create, naming the field; just inside passes', async () => {
    const ok = { email: 'bounds@example.com', name: 'B' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, email: 'a@' }, 'body.email'],
      [{ ...ok, email: `${'a'.repeat(316)}@b.co` }, 'body.email'],
      [{ ...ok, email: 'not-an-email' }, 'body.email'],
      [{ ...ok, name: '' }, 'body.name'],
      [{ ...ok, name: 'n'.repeat(121) }, 'body.name'],
      [{ ...ok, password: 'x'.repeat(7) }, 'body.password'],
      [{ ...ok, password: 'x'.repeat(201) }, 'body.password'],
      [{ ...ok, roleIds: ['r'.repeat(65)] }, 'body.roleIds.0'],
      [{ ...ok, roleIds: 'viewer' }, 'body.roleIds'],
      [{ ...ok, status: 'active' }, 'body'],
      [{ name: 'No mail' }, 'body.email'],
    ];
    for (const [body, path] of cases) {
      const res = await call(inst, admin, 'POST', '/api/v1/users', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(issuePaths(res)).toContain(path);
    }
    const inside = [
      { email: `${'a'.repeat(315)}@b.co`, name: 'n'.repeat(120), password: 'x'.repeat(8) },
      { email: 'a@b.co', name: 'n', password: 'x'.repeat(200) },
    ];
    for (const body of inside) expect((await call(inst, admin, 'POST', '/api/v1/users', body)).status).toBe(201);
  });

  it('enforces the field bounds on change, on the query and on the path', async () => {
    const u = (await call(inst, admin, 'POST', '/api/v1/users', { email: 'patch-bounds@example.com', name: 'P' })).body.data.user;
    const cases: Array<[string, string, unknown, string]> = [
      ['PATCH', `/api/v1/users/${u.id}`, { name: '' }, 'body.name'],
      ['PATCH', `/api/v1/users/${u.id}`, { name: 'n'.repeat(121) }, 'body.name'],
      ['PATCH', `/api/v1/users/${u.id}`, { email: 'ab' }, 'body.email'],
      ['PATCH', `/api/v1/users/${u.id}`, { email: `${'a'.repeat(316)}@b.co` }, 'body.email'],
      ['PATCH', `/api/v1/users/${u.id}`, { status: 'invited' }, 'body.status'],
      ['PATCH', `/api/v1/users/${u.id}`, { password: 'x'.repeat(10) }, 'body'],
      ['GET', '/api/v1/users?limit=0', undefined, 'query.limit'],
      ['GET', '/api/v1/users?limit=501', undefined, 'query.limit'],
      ['GET', '/api/v1/users?status=gone', undefined, 'query.status'],
      ['GET', '/api/v1/users?cursor=not-a-cursor', undefined, 'query.cursor'],
      ['GET', `/api/v1/users/${'i'.repeat(65)}`, undefined, 'params.id'],
      ['POST', `/api/v1/users/${u.id}/roles`, { roleIds: [], extra: 1 }, 'body'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await call(inst, admin, method, path, body);
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(issuePaths(res)).toContain(field);
    }
    expect((await call(inst, admin, 'GET', '/api/v1/users?limit=500')).status).toBe(200);
    expect((await call(inst, admin, 'PATCH', `/api/v1/users/${u.id}`, { name: 'n'.repeat(120) })).status).toBe(200);
  });

  it('lists in pages with an opaque cursor, and filters by status, role and search', async () => {
    const names = ['Alice Smith', 'alan turing', '100% Bob', 'under_score', 'Zed'];
    for (const [i, name] of names.entries()) {
      await call(inst, admin, 'POST', '/api/v1/users', {
        email: `list${i}@list.example`,
        name,
        ...(i % 2 ? { password: 'list-password' } : {}),
        roleIds: i === 4 ? ['editor'] : [],
      });
    }
    const all = (await call(inst, admin, 'GET', '/api/v1/users?limit=500')).body.data.users as Array<{ id: string }>;
    expect(all.map((u) => u.id)).toEqual([...all.map((u) => u.id)].sort());
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await call(inst, admin, 'GET', `/api/v1/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.body.data.users.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.users.map((u: { id: string }) => u.id));
      cursor = res.body.data.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(all.map((u) => u.id));
    expect(pages).toBe(Math.ceil(all.length / 2));
    expect((await call(inst, admin, 'GET', '/api/v1/users')).body.data.nextCursor).toBeNull();

    const search = async (q: string) =>
      ((await call(inst, admin, 'GET', `/api/v1/users?q=${encodeURIComponent(q)}`)).body.data.users as Array<{ name: string }>).map((u) => u.name);
    expect(await search('AL')).toEqual(['Alice Smith', 'alan turing']);
    expect(await search('%')).toEqual(['100% Bob']);
    expect(await search('_')).toEqual(['under_score']);
    expect(await search('LIST3@')).toEqual(['under_score']);
    const invited = (await call(inst, admin, 'GET', '/api/v1/users?status=invited&q=list.example')).body.data.users.map((u: { name: string }) => u.name);
    expect(invited).toEqual(['Alice Smith', '100% Bob', 'Zed']);
    const editors = (await call(inst, admin, 'GET', '/api/v1/users?roleId=editor&q=list.example')).body.data.users.map((u: { name: string }) => u.name);
    expect(editors).toEqual(['Zed']);
  });

  it('refuses status changes on an invited user (it becomes active by accepting the invitation)', async () => {
    const u = (await call(inst, admin, 'POST', '/api/v1/users', { email: 'pending@example.com', name: 'Pending' })).body.data.user;
    for (const status of ['active', 'suspended']) {
      const res = await call(inst, admin, 'PATCH', `/api/v1/users/${u.id}`, { status });
      expect(res.status).toBe(409);
      expect(res.body.error.params).toMatchObject({ reason: 'invited' });
    }
  });

  it('refuses a viewer on the users routes with 403 FORBIDDEN naming the permission', async () => {
    const viewer = await activeUser(inst, admin, 'viewer@example.com', ['viewer']);
    const read = await call(inst, viewer.client, 'GET', '/api/v1/users');
    expect(read.status).toBe(403);
    expect(read.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'users.read' } });
    const write = await call(inst, viewer.client, 'POST', '/api/v1/users', { email: 'x@example.com', name: 'X' });
    expect(write.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'users.write' } });
    const promote = await call(inst, viewer.client, 'PUT', `/api/v1/users/${viewer.id}/roles`, { roleIds: ['admin'] });
    expect(promote.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'users.write' } });
  });

  it('lets a user manager act only on users and roles within its own permissions', async () => {
    const role = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'User managers' })).body.data.role;
    // It may hand out the viewer role only because it holds everything a viewer holds (K15).
    const viewerHolds = inst.app.kernel.permissions
      .list()
      .filter((p) => p.roles?.includes('viewer'))
      .map((p) => ({ permission: p.name }));
    await call(inst, admin, 'PUT', `/api/v1/roles/${role.id}/permissions`, {
      grants: [{ permission: 'users.read' }, { permission: 'users.write' }, ...viewerHolds],
    });
    const manager = await activeUser(inst, admin, 'manager@example.com', [role.id]);

    const plain = await call(inst, manager.client, 'POST', '/api/v1/users', { email: 'plain@example.com', name: 'Plain', roleIds: ['viewer'] });
    expect(plain.status).toBe(201);
    const escalate = await call(inst, manager.client, 'POST', '/api/v1/users', { email: 'boss@example.com', name: 'Boss', roleIds: ['admin'] });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error).toMatchObject({ code: 'FORBIDDEN', params: { reason: 'escalation', roleIds: ['admin'] } });
    const self = await call(inst, manager.client, 'POST', `/api/v1/users/${manager.id}/roles`, { roleIds: ['admin'] });
    expect(self.status).toBe(403);
    // Nor may it change an admin's e-mail (and then reset the password) or delete one.
    const onAdmin = await call(inst, manager.client, 'PATCH', `/api/v1/users/${adminId}`, { email: 'mine@example.com' });
    expect(onAdmin.status).toBe(403);
    expect((await call(inst, manager.client, 'DELETE', `/api/v1/users/${adminId}`)).status).toBe(403);
    expect((await call(inst, manager.client, 'PATCH', `/api/v1/users/${plain.body.data.user.id}`, { name: 'Renamed' })).status).toBe(200);
  });
});
