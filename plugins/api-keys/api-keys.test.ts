import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noBody, route } from '../../kernel/contract/route.js';
import { dataOf } from '../../kernel/contract/shapes.js';
import { hashToken } from '../../kernel/identity/tokens.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { call } from '../../test/helpers/contract.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import type { MetaChoice, TestInstance } from '../../test/helpers/instance.js';
import { activeUser, bearer, bootWithAdmin, issuePaths } from '../../test/helpers/identity.js';

const pg = await databaseAvailable('postgres');
const SECRET = /^adm_sk_[A-Za-z0-9_-]{43}$/;

// What viewers may read and only editors may write (K3), to see a key act with its role.
const ok = dataOf(z.strictObject({ ok: z.literal(true) }));
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
      schema: { response: { 200: ok } },
      handler: () => ({ data: { ok: true as const } }),
    }),
    route({
      method: 'POST',
      url: '/probe',
      summary: 'write',
      permission: 'probe.write',
      schema: { body: noBody, response: { 200: ok } },
      handler: () => ({ data: { ok: true as const } }),
    }),
  ],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function keyFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let admin: HttpClient;
  let adminId: string;
  beforeAll(async () => ({ inst, admin, adminId } = await bootWithAdmin({ meta, plugins: [probe] })));
  afterAll(async () => inst?.close());

  const createKey = async (roleId: string, name = `${roleId} key`) => {
    const res = await call(inst, admin, 'POST', '/api/v1/api-keys', { name, roleId });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { apiKey: { id: string; prefix: string; lastUsedAt: number | null }; secret: string };
  };

  it('creates a key from a session: the secret once, stored only as its hash', async () => {
    const res = await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'CI', roleId: 'viewer' });
    expect(res.status).toBe(201);
    const { apiKey, secret } = res.body.data;
    expect(secret).toMatch(SECRET);
    expect(apiKey).toEqual({ id: apiKey.id, name: 'CI', roleId: 'viewer', prefix: secret.slice(0, 12), createdAt: apiKey.createdAt, lastUsedAt: null });
    const row = await inst.app.kernel.db.selectFrom('api_keys').selectAll().where('id', '=', apiKey.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ key_hash: hashToken(secret), created_by: adminId, revoked_at: null, prefix: secret.slice(0, 12) });
    expect(JSON.stringify(row)).not.toContain(secret);

    const list = await call(inst, admin, 'GET', '/api/v1/api-keys');
    expect(list.body.data.apiKeys).toContainEqual(apiKey);
    expect(list.text).not.toContain(secret);
  });

  it('acts with exactly its role: a viewer key reads what viewers may and writes nothing', async () => {
    const { secret } = await createKey('viewer');
    const c = inst.client();
    expect((await call(inst, c, 'GET', '/api/v1/probe', undefined, bearer(secret))).status).toBe(200);
    for (const [method, path, body, permission] of [
      ['POST', '/api/v1/probe', undefined, 'probe.write'],
      ['GET', '/api/v1/users', undefined, 'users.read'],
      ['POST', '/api/v1/roles', { name: 'nope' }, 'roles.write'],
      ['GET', '/api/v1/api-keys', undefined, 'api-keys.read'],
    ] as const) {
      const res = await call(inst, c, method, path, body, bearer(secret));
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission } });
    }
    const editor = (await createKey('editor')).secret;
    expect((await call(inst, c, 'POST', '/api/v1/probe', undefined, bearer(editor))).status).toBe(200);
    expect((await call(inst, c, 'GET', '/api/v1/users', undefined, bearer(editor))).status).toBe(403);
  });

  it('an admin key may administer, but may not mint keys: that needs a signed-in session (403)', async () => {
    const { secret } = await createKey('admin');
    const c = inst.client();
    expect((await call(inst, c, 'GET', '/api/v1/users', undefined, bearer(secret))).status).toBe(200);
    const user = await call(inst, c, 'POST', '/api/v1/users', { email: `by-key-${meta}@example.com`, name: 'By key' }, bearer(secret));
    expect(user.status).toBe(201);
    const minted = await call(inst, c, 'POST', '/api/v1/api-keys', { name: 'child', roleId: 'viewer' }, bearer(secret));
    expect(minted.status).toBe(403);
    expect(minted.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'api-keys.write', reason: 'session-required' } });
    // Writes by a key are attributed to the key in the audit trail.
    const entry = await inst.app.kernel.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'users.create')
      .where('target_id', '=', user.body.data.user.id)
      .executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ actor_type: 'apiKey' });
  });

  it('is refused from the very next request once revoked, and leaves the list', async () => {
    const { apiKey, secret } = await createKey('admin', 'to revoke');
    const c = inst.client();
    expect((await call(inst, c, 'GET', '/api/v1/users', undefined, bearer(secret))).status).toBe(200);
    expect((await call(inst, admin, 'DELETE', `/api/v1/api-keys/${apiKey.id}`)).body).toEqual({ data: { ok: true } });
    const after = await call(inst, c, 'GET', '/api/v1/users', undefined, bearer(secret));
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('AUTH_KEY_INVALID');
    expect((await call(inst, admin, 'GET', '/api/v1/api-keys?limit=500')).body.data.apiKeys.map((k: { id: string }) => k.id)).not.toContain(apiKey.id);
    const again = await call(inst, admin, 'DELETE', `/api/v1/api-keys/${apiKey.id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('NOT_FOUND');
  });

  it('may revoke itself: the request that revokes succeeds, the next is refused', async () => {
    const { apiKey, secret } = await createKey('admin', 'self-revoking');
    const c = inst.client();
    expect((await call(inst, c, 'DELETE', `/api/v1/api-keys/${apiKey.id}`, undefined, bearer(secret))).status).toBe(200);
    expect((await c.get('/api/v1/api-keys', { headers: bearer(secret) })).status).toBe(401);
  });

  it('records lastUsedAt once the key is used', async () => {
    const { apiKey, secret } = await createKey('viewer', 'used');
    const before = Date.now();
    await call(inst, inst.client(), 'GET', '/api/v1/probe', undefined, bearer(secret));
    const listed = (await call(inst, admin, 'GET', '/api/v1/api-keys?limit=500')).body.data.apiKeys.find((k: { id: string }) => k.id === apiKey.id);
    expect(listed.lastUsedAt).toBeGreaterThanOrEqual(before - 1000);
    expect(listed.lastUsedAt).toBeLessThanOrEqual(Date.now());
  });

  it('refuses a key for a role reaching beyond the creator’s own permissions (403)', async () => {
    const keyMakers = (await call(inst, admin, 'POST', '/api/v1/roles', { name: `Key makers ${meta}` })).body.data.role;
    await call(inst, admin, 'PUT', `/api/v1/roles/${keyMakers.id}/permissions`, {
      grants: [{ permission: 'api-keys.read' }, { permission: 'api-keys.write' }],
    });
    const maker = await activeUser(inst, admin, `maker-${meta}@example.com`, [keyMakers.id]);
    for (const roleId of ['admin', 'viewer']) {
      const res = await call(inst, maker.client, 'POST', '/api/v1/api-keys', { name: 'too much', roleId });
      expect(res.status, roleId).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { reason: 'escalation', roleIds: [roleId] } });
    }
    expect((await call(inst, maker.client, 'POST', '/api/v1/api-keys', { name: 'own role', roleId: keyMakers.id })).status).toBe(201);
  });

  it('leaves an audit trail of a scripted session, in order, without the secret', async () => {
    const start = (await inst.app.kernel.db.selectFrom('audit_log').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst())?.id ?? '';
    // Ids order entries by their millisecond; a pause keeps each step in its own.
    const user = (await call(inst, admin, 'POST', '/api/v1/users', { email: `scripted-${meta}@example.com`, name: 'Scripted' })).body.data.user;
    await sleep(3);
    await call(inst, admin, 'PUT', `/api/v1/users/${user.id}/roles`, { roleIds: ['editor'] });
    await sleep(3);
    const { apiKey, secret } = await createKey('editor', 'scripted');
    await sleep(3);
    await call(inst, admin, 'DELETE', `/api/v1/api-keys/${apiKey.id}`);

    const rows = await inst.app.kernel.db.selectFrom('audit_log').selectAll().where('id', '>', start).orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.target_type, r.target_id])).toEqual([
      ['users.create', 'user', user.id],
      ['users.roles.set', 'user', user.id],
      ['api-keys.create', 'apiKey', apiKey.id],
      ['api-keys.revoke', 'apiKey', apiKey.id],
    ]);
    for (const r of rows) expect(r).toMatchObject({ actor_type: 'user', actor_id: adminId });
    expect(JSON.parse(rows[1]!.diff!)).toEqual({ before: [], after: ['editor'] });
    expect(JSON.parse(rows[2]!.diff!)).toEqual({ name: 'scripted', roleId: 'editor', prefix: secret.slice(0, 12) });
    const everything = await inst.app.kernel.db.selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(everything)).not.toContain(secret);
    expect(JSON.stringify(everything)).not.toContain(secret.slice(12));
  });
}

describe('API keys on SQLite', () => keyFlows('sqlite'));
describe.runIf(pg)('API keys on PostgreSQL', () => keyFlows('postgres'));

describe('API keys: bounds, lists and who may call', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  beforeAll(async () => ({ inst, admin } = await bootWithAdmin({ plugins: [probe] })));
  afterAll(async () => inst?.close());

  it('enforces the field bounds, naming the field; just inside passes', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: '', roleId: 'viewer' }, 'body.name'],
      [{ name: 'n'.repeat(121), roleId: 'viewer' }, 'body.name'],
      [{ name: 'k' }, 'body.roleId'],
      [{ name: 'k', roleId: '' }, 'body.roleId'],
      [{ name: 'k', roleId: 'no-such-role' }, 'body.roleId'],
      [{ name: 'k', roleId: 'viewer', secret: 'mine' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await call(inst, admin, 'POST', '/api/v1/api-keys', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(issuePaths(res)).toContain(field);
    }
    expect((await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'n'.repeat(120), roleId: 'viewer' })).status).toBe(201);
    expect((await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'n', roleId: 'viewer' })).status).toBe(201);
    expect(issuePaths(await call(inst, admin, 'GET', '/api/v1/api-keys?limit=0'))).toContain('query.limit');
    expect(issuePaths(await call(inst, admin, 'GET', '/api/v1/api-keys?cursor=eyJ4IjoxfQ'))).toContain('query.cursor');
    expect((await call(inst, admin, 'DELETE', '/api/v1/api-keys/01zzzzzzzzzzzzzzzzzzzzzzzz')).status).toBe(404);
  });

  it('pages the live keys with an opaque cursor', async () => {
    for (let i = 0; i < 5; i++) await call(inst, admin, 'POST', '/api/v1/api-keys', { name: `page ${i}`, roleId: 'viewer' });
    const all = (await call(inst, admin, 'GET', '/api/v1/api-keys?limit=500')).body.data.apiKeys.map((k: { id: string }) => k.id);
    expect(all.length).toBeGreaterThanOrEqual(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await call(inst, admin, 'GET', `/api/v1/api-keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.body.data.apiKeys.map((k: { id: string }) => k.id));
      cursor = res.body.data.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it('refuses viewers and editors on every key route (403 naming the permission)', async () => {
    const viewer = await activeUser(inst, admin, 'key-viewer@example.com', ['viewer']);
    const list = await call(inst, viewer.client, 'GET', '/api/v1/api-keys');
    expect(list.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'api-keys.read' } });
    const create = await call(inst, viewer.client, 'POST', '/api/v1/api-keys', { name: 'k', roleId: 'viewer' });
    expect(create.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'api-keys.write' } });
  });
});
