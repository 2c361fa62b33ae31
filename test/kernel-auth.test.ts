import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SIGNED_IN, noBody, reply, route } from '../kernel/contract/route.js';
import { dataOf } from '../kernel/contract/shapes.js';
import { newId } from '../kernel/ids.js';
import { hashToken, randomToken } from '../kernel/identity/tokens.js';
import { definePlugin } from '../kernel/plugin/manifest.js';
import { call } from './helpers/contract.js';
import type { HttpClient } from './helpers/client.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const ok = dataOf(z.strictObject({ ok: z.literal(true) }));
const probe = definePlugin({
  name: 'probe',
  version: '1.0.0',
  permissions: [
    { name: 'probe.read', label: 'Read probes', description: 'Read', roles: ['editor', 'viewer'] },
    { name: 'probe.admin', label: 'Administer probes', description: 'Administer' },
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
      permission: 'probe.admin',
      schema: { body: noBody, response: { 200: ok } },
      handler: () => ({ data: { ok: true as const } }),
    }),
    route({
      method: 'POST',
      url: '/probe/self',
      summary: 'any signed-in',
      permission: SIGNED_IN,
      schema: { body: noBody, response: { 200: ok } },
      handler: () => ({ data: { ok: true as const } }),
    }),
    route({
      method: 'GET',
      url: '/probe/boom',
      summary: 'fails',
      public: true,
      schema: { response: { 200: ok } },
      handler: () => {
        throw new Error('select password_hash from users where id = 1');
      },
    }),
    route({
      method: 'GET',
      url: '/probe/boom-later',
      summary: 'fails after waiting',
      public: true,
      schema: { response: { 200: ok } },
      handler: async () => {
        await delay(5);
        throw new Error('select password_hash from users where id = 2');
      },
    }),
    route({
      method: 'GET',
      url: '/probe/empty',
      summary: 'nothing, at once',
      public: true,
      schema: { response: { 204: z.undefined() } },
      handler: () => reply(204, undefined),
    }),
    route({
      method: 'GET',
      url: '/probe/empty-later',
      summary: 'nothing, after waiting',
      public: true,
      schema: { response: { 204: z.undefined() } },
      handler: async () => {
        await delay(5);
        return reply(204, undefined);
      },
    }),
    route({
      method: 'GET',
      url: '/probe/leak',
      summary: 'answers more than it declares',
      public: true,
      schema: { response: { 200: dataOf(z.object({ name: z.string() })) } },
      handler: () => ({ data: { name: 'n', password_hash: 'should never leave' } }) as never,
    }),
  ],
});

let inst: TestInstance;
let admin: HttpClient;
const logLines: string[] = [];

async function insertKey(roleId: string, revoked = false): Promise<string> {
  const token = `adm_sk_${randomToken(24)}`;
  await inst.app.kernel.db
    .insertInto('api_keys')
    .values({
      id: newId(),
      name: `k-${roleId}`,
      role_id: roleId,
      prefix: token.slice(0, 12),
      key_hash: hashToken(token),
      created_by: null,
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: revoked ? Date.now() : null,
    })
    .execute();
  return token;
}

beforeAll(async () => {
  inst = await startInstance({ plugins: [probe], env: { SVC_CORS_ORIGINS: 'https://split.example' }, logLines });
  admin = inst.client();
  const res = await admin.post('/api/v1/setup/super-admin', { email: 'root@example.com', password: 'root-password', name: 'Root' });
  expect(res.status).toBe(201);
});
afterAll(async () => {
  await inst?.close();
});

describe('authentication and the permission check', () => {
  it('refuses a route with a permission to an anonymous caller', async () => {
    const res = await call(inst, inst.client(), 'GET', '/api/v1/probe');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_REQUIRED');
  });

  it('lets the session cookie through, and an admin holds every permission', async () => {
    expect((await call(inst, admin, 'GET', '/api/v1/probe')).status).toBe(200);
    expect((await call(inst, admin, 'POST', '/api/v1/probe')).status).toBe(200);
  });

  it('applies the same role check to an API key: a viewer key reads but may not administer', async () => {
    const key = await insertKey('viewer');
    const c = inst.client();
    const h = { authorization: `Bearer ${key}` };
    expect((await call(inst, c, 'GET', '/api/v1/probe', undefined, h)).status).toBe(200);
    const refused = await call(inst, c, 'POST', '/api/v1/probe', undefined, h);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'probe.admin' } });
    expect((await call(inst, c, 'POST', '/api/v1/probe/self', undefined, h)).status).toBe(200);
  });

  it('an admin key may administer, and records when it was last used', async () => {
    const key = await insertKey('admin');
    const res = await inst.client().request('POST', '/api/v1/probe', { headers: { authorization: `Bearer ${key}` }, noOrigin: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ok: true } });
    // The handler answered at once; the write is in the trail before the answer left.
    const trail = await inst.app.kernel.db.selectFrom('audit_log').select('action').where('action', '=', 'probe:POST /probe').execute();
    expect(trail.length).toBeGreaterThan(0);
    const lastUsed = async () =>
      (await inst.app.kernel.db.selectFrom('api_keys').select('last_used_at').where('key_hash', '=', hashToken(key)).executeTakeFirstOrThrow()).last_used_at;
    await inst.app.kernel.principals.flush();
    expect(await lastUsed()).not.toBeNull();
  });

  it('refuses a revoked, unknown or malformed key with AUTH_KEY_INVALID, never as anonymous', async () => {
    const revoked = await insertKey('admin', true);
    for (const header of [`Bearer ${revoked}`, `Bearer adm_sk_${randomToken(24)}`, 'Bearer adm_pub_abc', 'Basic abc']) {
      const res = await inst.client().get('/api/v1/probe', { headers: { authorization: header } });
      expect(res.status, header).toBe(401);
      expect(res.body.error.code).toBe('AUTH_KEY_INVALID');
    }
  });

  it('refuses a forged or unknown session cookie with AUTH_SESSION_INVALID', async () => {
    const c = inst.client();
    c.setCookie('svc_session', 'not-signed');
    expect((await c.get('/api/v1/probe')).body.error.code).toBe('AUTH_SESSION_INVALID');
  });

  it("refuses a deleted user's cookie", async () => {
    const c = inst.client();
    const now = Date.now();
    const id = newId();
    await inst.app.kernel.db
      .insertInto('users')
      .values({
        id,
        email: 'gone@example.com',
        name: 'Gone',
        status: 'active',
        password_hash: null,
        totp_enabled: 0,
        last_login_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await inst.app.kernel.db.insertInto('user_roles').values({ user_id: id, role_id: 'viewer' }).execute();
    const session = await inst.app.kernel.identity.createSession(id, { ip: null, userAgent: null });
    c.setCookie('svc_session', inst.app.http.signCookie(session.token));
    expect((await c.get('/api/v1/probe')).status).toBe(200);
    await inst.app.kernel.db.deleteFrom('users').where('id', '=', id).execute();
    const res = await c.get('/api/v1/probe');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_SESSION_INVALID');
  });
});

describe('CSRF (D7): unsafe requests carried by the cookie', () => {
  it('are refused without an Origin', async () => {
    const res = await admin.request('POST', '/api/v1/probe', { noOrigin: true });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CSRF_REFUSED');
  });

  it('are refused from a foreign origin', async () => {
    const res = await admin.request('POST', '/api/v1/probe', { headers: { origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CSRF_REFUSED');
  });

  it('pass from the instance itself and from an origin in SVC_CORS_ORIGINS', async () => {
    expect((await admin.request('POST', '/api/v1/probe')).status).toBe(200);
    expect((await admin.request('POST', '/api/v1/probe', { headers: { origin: 'https://split.example' } })).status).toBe(200);
  });

  it('do not apply to safe methods', async () => {
    expect((await admin.request('GET', '/api/v1/probe', { headers: { origin: 'https://evil.example' } })).status).toBe(200);
  });
});

describe('CORS from SVC_CORS_ORIGINS only', () => {
  it('answers a preflight from a listed origin with credentials allowed', async () => {
    const res = await inst
      .client()
      .request('OPTIONS', '/api/v1/probe', { headers: { origin: 'https://split.example', 'access-control-request-method': 'POST' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://split.example');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('grants nothing to another origin, and never *', async () => {
    const res = await inst.client().get('/api/v1/healthz', { headers: { origin: 'https://evil.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('failures inside a handler', () => {
  it('answer 500 INTERNAL with no SQL or stack in the body, and log the error with the request id', async () => {
    const res = await inst.client().get('/api/v1/probe/boom');
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL');
    expect(res.text).not.toContain('select');
    expect(res.text).not.toContain('.ts:');
    const line = logLines.map((l) => JSON.parse(l)).find((l) => l.reqId === res.body.error.requestId && l.level >= 50);
    expect(line?.err?.message).toContain('select password_hash');
  });

  it('answer the same whether the handler answers at once or after waiting', async () => {
    const later = await inst.client().get('/api/v1/probe/boom-later');
    expect(later.status).toBe(500);
    expect(later.body.error.code).toBe('INTERNAL');
    expect(later.text).not.toContain('select');
    for (const path of ['/api/v1/probe/empty', '/api/v1/probe/empty-later']) {
      const res = await inst.client().get(path);
      expect(res.status, path).toBe(204);
      expect(res.text, path).toBe('');
    }
  });

  it('never send a field the response schema does not declare', async () => {
    const res = await inst.client().get('/api/v1/probe/leak');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { name: 'n' } });
  });

  it('keep credentials out of every log line', async () => {
    const key = await insertKey('admin');
    await inst.client().get('/api/v1/probe', { headers: { authorization: `Bearer ${key}` } });
    await admin.get('/api/v1/probe');
    const all = logLines.join('\n');
    expect(all).not.toContain(key);
    expect(all).not.toContain(admin.cookie('svc_session')!);
    expect(all).not.toContain('root-password');
  });
});
