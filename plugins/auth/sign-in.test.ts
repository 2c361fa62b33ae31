import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../kernel/ids.js';
import { hashToken, randomToken } from '../../kernel/identity/tokens.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { createUser, setupAdmin, signedIn } from './testing.js';

let inst: TestInstance;
let admin: HttpClient;

beforeAll(async () => {
  inst = await startInstance();
  admin = await setupAdmin(inst);
});
afterAll(async () => {
  await inst?.close();
});

const login = (c: HttpClient, email: string, password: string) => call(inst, c, 'POST', '/api/v1/auth/login', { email, password });

describe('POST /auth/login without 2FA (signed out → signed in)', () => {
  it('answers 200 with the user, no twoFactorSetupRequired, and sets the signed session cookie', async () => {
    const id = await createUser(inst, { email: 'ann@example.com' });
    const c = inst.client();
    const before = Date.now();
    const res = await login(c, 'Ann@Example.com ', 'password-123');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['user']);
    expect(res.body.data.user).toMatchObject({ id, email: 'ann@example.com', status: 'active', totpEnabled: false });
    expect(res.body.data.user.lastLoginAt).toBeGreaterThanOrEqual(before);
    const row = await inst.app.kernel.db.selectFrom('users').select('last_login_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.last_login_at)).toBe(res.body.data.user.lastLoginAt);

    const cookie = res.headers.getSetCookie().find((l) => l.startsWith('svc_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    expect(c.cookie('svc_session')).toMatch(/^[^.]+\..+$/);

    const session = await call(inst, c, 'GET', '/api/v1/auth/session');
    expect(session.status).toBe(200);
    const viewerHolds = inst.app.kernel.permissions
      .builtinGrants('viewer')
      .map((g) => g.permission)
      .sort();
    expect(session.body.data).toEqual({ user: res.body.data.user, roles: ['viewer'], permissions: viewerHolds, grants: [], twoFactorSetupRequired: false });
  });

  it('records auth.login in the audit trail, with the user as actor and target', async () => {
    const id = await createUser(inst, { email: 'audited@example.com' });
    await signedIn(inst, 'audited@example.com');
    const rows = await inst.app.kernel.db.selectFrom('audit_log').selectAll().where('action', '=', 'auth.login').where('target_id', '=', id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_type: 'user', actor_id: id, target_type: 'user' });
  });

  it('opens a new session with a new id and token at every sign-in, and ends the one presented', async () => {
    const id = await createUser(inst, { email: 'fix@example.com' });
    const c = await signedIn(inst, 'fix@example.com');
    const first = c.cookie('svc_session')!;
    const firstSessions = await inst.app.kernel.db.selectFrom('sessions').select('id').where('user_id', '=', id).execute();
    await login(c, 'fix@example.com', 'password-123');
    const second = c.cookie('svc_session')!;
    expect(second).not.toBe(first);
    const sessions = await inst.app.kernel.db.selectFrom('sessions').select('id').where('user_id', '=', id).execute();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.id).not.toBe(firstSessions[0]!.id);
    // The replaced cookie no longer works.
    const stale = inst.client();
    stale.setCookie('svc_session', first);
    expect((await call(inst, stale, 'GET', '/api/v1/auth/session')).body.error.code).toBe('AUTH_SESSION_INVALID');
  });

  it('never promotes a planted cookie (session fixation)', async () => {
    await createUser(inst, { email: 'victim@example.com' });
    await createUser(inst, { email: 'attacker@example.com' });
    const attacker = await signedIn(inst, 'attacker@example.com');
    const planted = attacker.cookie('svc_session')!;
    const victim = inst.client();
    victim.setCookie('svc_session', planted);
    const res = await login(victim, 'victim@example.com', 'password-123');
    expect(res.status).toBe(200);
    expect(victim.cookie('svc_session')).not.toBe(planted);
    const who = await call(inst, victim, 'GET', '/api/v1/auth/session');
    expect(who.body.data.user.email).toBe('victim@example.com');
    // The planted value is dead: it cannot be used to ride along on the victim's sign-in.
    expect((await call(inst, attacker, 'GET', '/api/v1/auth/session')).status).toBe(401);
  });
});

describe('a hash made at another SVC_PASSWORD_HASH', () => {
  it('is hashed again at the configured cost when the right password signs in; a wrong one changes nothing', async () => {
    const other = await startInstance({ env: { SVC_PASSWORD_HASH: 'm=2048,t=1,p=1' } });
    try {
      const argon2 = (await import('argon2')).default;
      const old = await argon2.hash('password-123', { type: argon2.argon2id, memoryCost: 1024, timeCost: 2, parallelism: 1 });
      const id = await createUser(other, { email: 'dora@example.com' });
      const db = other.app.kernel.db;
      await db.updateTable('users').set({ password_hash: old }).where('id', '=', id).execute();
      const stored = async () => (await db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow()).password_hash!;

      expect((await login(other.client(), 'dora@example.com', 'wrong-password')).status).toBe(401);
      expect(await stored()).toBe(old);
      expect((await login(other.client(), 'dora@example.com', 'password-123')).status).toBe(200);
      const fresh = await stored();
      expect(fresh).toMatch(/^\$argon2id\$v=19\$m=2048,p=1,t=1\$/);
      expect(await argon2.verify(fresh, 'password-123')).toBe(true);
      // At today's cost it stays as it is.
      expect((await login(other.client(), 'dora@example.com', 'password-123')).status).toBe(200);
      expect(await stored()).toBe(fresh);
    } finally {
      await other.close();
    }
  });
});

describe('refused sign-ins', () => {
  it('answer the same 401 AUTH_INVALID_CREDENTIALS for an unknown e-mail and a wrong password', async () => {
    await createUser(inst, { email: 'bob@example.com' });
    const unknown = await login(inst.client(), 'nobody@example.com', 'password-123');
    const wrong = await login(inst.client(), 'bob@example.com', 'wrong-password');
    for (const res of [unknown, wrong]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    expect(unknown.body.error.message).toBe(wrong.body.error.message);
    expect(Object.keys(unknown.body.error).sort()).toEqual(Object.keys(wrong.body.error).sort());
  });

  it('take about the same time for an unknown e-mail and a wrong password (one argon2 verify each)', async () => {
    // At OWASP's minimum cost, not the tests' least: a verify must outweigh the noise it is
    // compared under (at 1 MiB it takes a millisecond).
    const timed = await startInstance({ env: { SVC_PASSWORD_HASH: 'm=19456,t=2,p=1' } });
    await createUser(timed, { email: 'carol@example.com' });
    const time = async (email: string) => {
      const t0 = performance.now();
      await timed.client().post('/api/v1/auth/login', { email, password: 'wrong-password' });
      return performance.now() - t0;
    };
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const unknown: number[] = [];
    const known: number[] = [];
    for (let i = 0; i < 5; i++) {
      unknown.push(await time(`ghost${i}@example.com`));
      known.push(await time('carol@example.com'));
    }
    await timed.close();
    const ratio = median(unknown) / median(known);
    // Loose bounds: a missing decoy would answer an unknown e-mail about a hundred times faster.
    expect(ratio).toBeGreaterThan(0.4);
    expect(ratio).toBeLessThan(2.5);
  }, 120_000);

  it('refuse a suspended user and an invited user without a password with the same 401', async () => {
    await createUser(inst, { email: 'sus@example.com', status: 'suspended' });
    await createUser(inst, { email: 'inv@example.com', status: 'invited', password: null });
    for (const [email, password] of [
      ['sus@example.com', 'password-123'],
      ['inv@example.com', 'password-123'],
      ['inv@example.com', 'anything-at-all'],
    ] as const) {
      const res = await login(inst.client(), email, password);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
    }
  });

  it('do not check the e-mail format: a malformed e-mail in bounds is just wrong credentials', async () => {
    const res = await login(inst.client(), 'not-an-email', 'password-123');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
  });

  it('are recorded as auth.login-failed, never with the password', async () => {
    await login(inst.client(), 'bob@example.com', 'very-secret-guess');
    const rows = await inst.app.kernel.db.selectFrom('audit_log').selectAll().where('action', '=', 'auth.login-failed').execute();
    expect(rows.length).toBeGreaterThan(0);
    const all = JSON.stringify(rows);
    expect(all).not.toContain('very-secret-guess');
    expect(all).not.toContain('password-123');
    expect(rows.every((r) => r.actor_type === 'anonymous')).toBe(true);
  });

  it('from a foreign page are refused (login CSRF); a script without Origin may sign in', async () => {
    await createUser(inst, { email: 'script@example.com' });
    const foreign = await inst
      .client()
      .post('/api/v1/auth/login', { email: 'script@example.com', password: 'password-123' }, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('CSRF_REFUSED');
    const script = await inst.client().post('/api/v1/auth/login', { email: 'script@example.com', password: 'password-123' }, { noOrigin: true });
    expect(script.status).toBe(200);
  });
});

describe('POST /auth/logout (signed in → signed out)', () => {
  it('answers ok, ends the session and clears the cookie', async () => {
    await createUser(inst, { email: 'out@example.com' });
    const c = await signedIn(inst, 'out@example.com');
    const token = c.cookie('svc_session')!;
    const res = await call(inst, c, 'POST', '/api/v1/auth/logout');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ok: true } });
    expect(res.headers.getSetCookie().some((l) => l.startsWith('svc_session=;') && /Expires=Thu, 01 Jan 1970/i.test(l))).toBe(true);
    expect(c.cookie('svc_session')).toBeUndefined();
    expect((await call(inst, c, 'GET', '/api/v1/auth/session')).body.error.code).toBe('AUTH_REQUIRED');
    const replay = inst.client();
    replay.setCookie('svc_session', token);
    expect((await call(inst, replay, 'GET', '/api/v1/auth/session')).body.error.code).toBe('AUTH_SESSION_INVALID');
  });

  it('needs a session', async () => {
    const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/logout');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_REQUIRED');
  });
});

describe('GET /auth/session', () => {
  it('answers the role ids and twoFactorSetupRequired from the security policy', async () => {
    await createUser(inst, { email: 'editor@example.com', roles: ['editor', 'viewer'] });
    const c = await signedIn(inst, 'editor@example.com');
    let res = await call(inst, c, 'GET', '/api/v1/auth/session');
    expect(res.body.data.roles.sort()).toEqual(['editor', 'viewer']);
    expect(res.body.data.twoFactorSetupRequired).toBe(false);

    expect((await call(inst, admin, 'PUT', '/api/v1/settings/security', { requireTwoFactorForRoles: ['editor'] })).status).toBe(200);
    try {
      res = await call(inst, c, 'GET', '/api/v1/auth/session');
      expect(res.body.data.twoFactorSetupRequired).toBe(true);
      const again = await login(inst.client(), 'editor@example.com', 'password-123');
      expect(again.status).toBe(200);
      expect(again.body.data.twoFactorSetupRequired).toBe(true);
      // A role outside the policy is not affected.
      await createUser(inst, { email: 'plain@example.com', roles: ['viewer'] });
      const plain = await login(inst.client(), 'plain@example.com', 'password-123');
      expect('twoFactorSetupRequired' in plain.body.data).toBe(false);
    } finally {
      await call(inst, admin, 'PUT', '/api/v1/settings/security', { requireTwoFactorForRoles: [] });
    }
  });

  it("refuses a deleted user's cookie", async () => {
    const id = await createUser(inst, { email: 'gone@example.com' });
    const c = await signedIn(inst, 'gone@example.com');
    expect((await call(inst, c, 'GET', '/api/v1/auth/session')).status).toBe(200);
    await inst.app.kernel.db.deleteFrom('users').where('id', '=', id).execute();
    const res = await call(inst, c, 'GET', '/api/v1/auth/session');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_SESSION_INVALID');
  });

  it('is refused to an API key, which acts for a role and has no user', async () => {
    const token = `adm_sk_${randomToken(24)}`;
    await inst.app.kernel.db
      .insertInto('api_keys')
      .values({
        id: newId(),
        name: 'k',
        role_id: 'admin',
        prefix: token.slice(0, 12),
        key_hash: hashToken(token),
        created_by: null,
        created_at: Date.now(),
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    const res = await call(inst, inst.client(), 'GET', '/api/v1/auth/session', undefined, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('SESSION_REQUIRED');
  });
});

describe('GET /auth/sessions and DELETE /auth/sessions/{id}', () => {
  it("lists only the caller's own sessions, marking the current one", async () => {
    await createUser(inst, { email: 'multi@example.com' });
    const a = await signedIn(inst, 'multi@example.com');
    const b = inst.client();
    await b.post('/api/v1/auth/login', { email: 'multi@example.com', password: 'password-123' }, { headers: { 'user-agent': 'Browser B' } });
    const res = await call(inst, a, 'GET', '/api/v1/auth/sessions');
    expect(res.status).toBe(200);
    const sessions = res.body.data.sessions as Array<Record<string, unknown>>;
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);
    const other = sessions.find((s) => !s.current)!;
    expect(other).toMatchObject({ ip: '127.0.0.1', userAgent: 'Browser B' });
    for (const s of sessions) {
      expect(Object.keys(s).sort()).toEqual(['createdAt', 'current', 'expiresAt', 'id', 'ip', 'lastSeenAt', 'userAgent']);
      expect(s.expiresAt as number).toBeGreaterThan(s.createdAt as number);
    }
    const adminSessions = await call(inst, admin, 'GET', '/api/v1/auth/sessions');
    expect(adminSessions.body.data.sessions.map((s: { id: string }) => s.id)).not.toContain(other.id);
  });

  it("ends one of the caller's own sessions", async () => {
    await createUser(inst, { email: 'two@example.com' });
    const a = await signedIn(inst, 'two@example.com');
    const b = await signedIn(inst, 'two@example.com');
    const listed = (await call(inst, a, 'GET', '/api/v1/auth/sessions')).body.data.sessions as Array<{ id: string; current: boolean }>;
    const bId = listed.find((s) => !s.current)!.id;
    const res = await call(inst, a, 'DELETE', `/api/v1/auth/sessions/${bId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ok: true } });
    expect((await call(inst, b, 'GET', '/api/v1/auth/session')).body.error.code).toBe('AUTH_SESSION_INVALID');
    expect((await call(inst, a, 'GET', '/api/v1/auth/session')).status).toBe(200);
  });

  it("answers 404 NOT_FOUND for another user's session and for an unknown id, and leaves it alone", async () => {
    await createUser(inst, { email: 'owner@example.com' });
    const other = await signedIn(inst, 'owner@example.com');
    const otherId = ((await call(inst, other, 'GET', '/api/v1/auth/sessions')).body.data.sessions as Array<{ id: string }>)[0]!.id;
    for (const id of [otherId, 'x', 'no-such-session']) {
      const res = await call(inst, admin, 'DELETE', `/api/v1/auth/sessions/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await call(inst, other, 'GET', '/api/v1/auth/session')).status).toBe(200);
  });

  it('clears the cookie when the current session is the one ended', async () => {
    await createUser(inst, { email: 'self-end@example.com' });
    const c = await signedIn(inst, 'self-end@example.com');
    const current = ((await call(inst, c, 'GET', '/api/v1/auth/sessions')).body.data.sessions as Array<{ id: string; current: boolean }>).find(
      (s) => s.current,
    )!;
    expect((await call(inst, c, 'DELETE', `/api/v1/auth/sessions/${current.id}`)).status).toBe(200);
    expect(c.cookie('svc_session')).toBeUndefined();
  });
});

describe('the Secure cookie flag', () => {
  it('is set behind a trusted proxy that says the request came over https, and only then', async () => {
    const proxied = await startInstance({ env: { SVC_TRUST_PROXY: 'true' } });
    const direct = await startInstance();
    try {
      for (const i of [proxied, direct]) await createUser(i, { email: 'tls@example.com' });
      const host = new URL(proxied.url).host;
      const viaHttps = await proxied
        .client()
        .post(
          '/api/v1/auth/login',
          { email: 'tls@example.com', password: 'password-123' },
          { headers: { 'x-forwarded-proto': 'https', origin: `https://${host}` } },
        );
      expect(viaHttps.status).toBe(200);
      expect(viaHttps.headers.getSetCookie().find((l) => l.startsWith('svc_session='))).toMatch(/;\s*Secure/i);

      const plain = await proxied.client().post('/api/v1/auth/login', { email: 'tls@example.com', password: 'password-123' });
      expect(plain.headers.getSetCookie().find((l) => l.startsWith('svc_session='))).not.toMatch(/Secure/i);

      // Without SVC_TRUST_PROXY the header is anyone's to send, so it is ignored.
      const spoofed = await direct
        .client()
        .post('/api/v1/auth/login', { email: 'tls@example.com', password: 'password-123' }, { headers: { 'x-forwarded-proto': 'https' } });
      expect(spoofed.status).toBe(200);
      expect(spoofed.headers.getSetCookie().find((l) => l.startsWith('svc_session='))).not.toMatch(/Secure/i);
    } finally {
      await proxied.close();
      await direct.close();
    }
  });
});
