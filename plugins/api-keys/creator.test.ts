import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionSet } from '../../kernel/identity/permissions.js';
import { call } from '../../test/helpers/contract.js';
import type { HttpClient } from '../../test/helpers/client.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { activeUser, bearer, bootWithAdmin } from '../../test/helpers/identity.js';

/**
 * Issue 11 item 10: a key made by an admin kept the admin role after its creator was demoted,
 * and created an admin. A key now holds its role's permissions only as far as its creator
 * holds them at the time of each request.
 */
describe('an API key never holds more than its creator holds now', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  beforeAll(async () => ({ inst, admin } = await bootWithAdmin()));
  afterAll(async () => inst?.close());

  const newUser = (key: string, email: string) =>
    call(inst, inst.client(), 'POST', '/api/v1/users', { email, name: 'n', password: 'long-enough-pw', roleIds: ['admin'] }, bearer(key));

  it("loses the admin role's powers as soon as its creator is demoted, and gets them back when re-promoted", async () => {
    const creator = await activeUser(inst, admin, 'creator@example.com', ['admin']);
    const made = await call(inst, creator.client, 'POST', '/api/v1/api-keys', { name: 'automation', roleId: 'admin' });
    expect(made.status, made.text).toBe(201);
    const key = made.body.data.secret as string;
    expect((await newUser(key, 'first@example.com')).status).toBe(201);

    expect((await call(inst, admin, 'PUT', `/api/v1/users/${creator.id}/roles`, { roleIds: ['viewer'] })).status).toBe(200);
    const refused = await newUser(key, 'second@example.com');
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await call(inst, inst.client(), 'GET', '/api/v1/users', undefined, bearer(key))).status).toBe(403);
    // What the creator and the key's role both hold still works.
    expect((await call(inst, inst.client(), 'GET', '/api/v1/connections', undefined, bearer(key))).status).toBe(200);

    expect((await call(inst, admin, 'PUT', `/api/v1/users/${creator.id}/roles`, { roleIds: ['admin'] })).status).toBe(200);
    expect((await newUser(key, 'third@example.com')).status).toBe(201);
  });

  it('a viewer key of an admin stays a viewer key (the role still bounds it)', async () => {
    const made = await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'reader', roleId: 'viewer' });
    const key = made.body.data.secret as string;
    expect((await call(inst, inst.client(), 'GET', '/api/v1/connections', undefined, bearer(key))).status).toBe(200);
    expect((await call(inst, inst.client(), 'GET', '/api/v1/users', undefined, bearer(key))).status).toBe(403);
  });

  it('answers 401 AUTH_KEY_INVALID while its creator is suspended, and for good once the creator is deleted', async () => {
    const creator = await activeUser(inst, admin, 'gone@example.com', ['admin']);
    const made = await call(inst, creator.client, 'POST', '/api/v1/api-keys', { name: 'soon orphaned', roleId: 'editor' });
    const key = made.body.data.secret as string;
    const probe = () => call(inst, inst.client(), 'GET', '/api/v1/connections', undefined, bearer(key));
    expect((await probe()).status).toBe(200);

    expect((await call(inst, admin, 'PATCH', `/api/v1/users/${creator.id}`, { status: 'suspended' })).status).toBe(200);
    const suspended = await probe();
    expect(suspended.status).toBe(401);
    expect(suspended.body.error.code).toBe('AUTH_KEY_INVALID');
    expect((await call(inst, admin, 'PATCH', `/api/v1/users/${creator.id}`, { status: 'active' })).status).toBe(200);
    expect((await probe()).status).toBe(200);

    expect((await call(inst, admin, 'DELETE', `/api/v1/users/${creator.id}`)).status).toBe(200);
    const deleted = await probe();
    expect(deleted.status).toBe(401);
    expect(deleted.body.error.code).toBe('AUTH_KEY_INVALID');
  });
});

describe('PermissionSet.intersect', () => {
  const c1 = 'c1';
  it('keeps what both hold, scopes narrowed to their overlap', () => {
    const key = new PermissionSet(false, [
      { permission: 'data.read' },
      { permission: 'data.write', scope: { connectionId: c1, table: 't', columns: ['a', 'b'] } },
      { permission: 'users.read' },
    ]);
    const creator = new PermissionSet(false, [
      { permission: 'data.read', scope: { connectionId: c1, table: 't' } },
      { permission: 'data.write', scope: { connectionId: c1, table: 't', columns: ['b', 'c'] } },
    ]);
    const both = key.intersect(creator);
    expect(both.all).toBe(false);
    expect(both.has('users.read')).toBe(false);
    expect(both.scopesOf('data.read')).toEqual([{ connectionId: c1, table: 't' }]);
    expect(both.grantOn('data.write', c1, 't')).toEqual({ all: false, columns: new Set(['b']) });
    expect(both.grantOn('data.read', 'c2', 't')).toBeNull();
  });
  it('everything ∩ a set is that set; disjoint columns leave nothing', () => {
    const some = new PermissionSet(false, [{ permission: 'p', scope: { connectionId: c1, table: 't', columns: ['a'] } }]);
    expect(new PermissionSet(true, []).intersect(some).scopesOf('p')).toEqual([{ connectionId: c1, table: 't', columns: ['a'] }]);
    expect(some.intersect(new PermissionSet(true, [])).scopesOf('p')).toEqual([{ connectionId: c1, table: 't', columns: ['a'] }]);
    expect(new PermissionSet(true, []).intersect(new PermissionSet(true, [])).all).toBe(true);
    const other = new PermissionSet(false, [{ permission: 'p', scope: { connectionId: c1, table: 't', columns: ['z'] } }]);
    expect(some.intersect(other).has('p')).toBe(false);
  });
});
