import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { activeUser, bootWithAdmin } from '../../test/helpers/identity.js';
import { startInstance, type MetaChoice, type TestInstance } from '../../test/helpers/instance.js';
import { roleWith } from '../exports/testing.js';
import { addConnection, fixtureSource, type FixtureSource } from '../public-admin/testing.js';

const pg = await databaseAvailable('postgres');

const stepsOf = (body: any): Record<string, boolean> => Object.fromEntries(body.steps.map((s: { id: string; done: boolean }) => [s.id, s.done]));
const clearedSessionCookie = (headers: Headers) =>
  headers.getSetCookie().some((l) => /^svc_session=;/.test(l) && /(Max-Age=0|Expires=Thu, 01 Jan 1970)/i.test(l));

function bootstrapFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let admin: HttpClient;
  let adminId: string;
  let source: FixtureSource;

  beforeAll(async () => {
    ({ inst, admin, adminId } = await bootWithAdmin({ meta }));
    source = await fixtureSource('sqlite');
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  const boot = (client: HttpClient) => call(inst, client, 'GET', '/api/v1/bootstrap');

  it('signed out: setup state and instance facts, no session', async () => {
    const res = await boot(inst.client());
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({
      setup: { open: false },
      instance: { version: expect.any(String), runtime: 'self-host', smtpConfigured: false, desktopDemo: false },
      branding: { productName: 'Admin', colors: { primary: null }, logo: null, signInMessage: null },
      i18n: null,
      session: null,
    });
  });

  it('signed in as admin: user, roles, every permission, prefs, nav, notifications, onboarding, public API', async () => {
    const res = await boot(admin);
    expect(res.status, res.text).toBe(200);
    const s = res.body.data.session;
    expect(s.user).toMatchObject({ id: adminId, email: 'root@example.com' });
    expect(s.roles).toEqual(['admin']);
    const catalog = inst.app.kernel.permissions.list().map((p) => p.name);
    expect(s.permissions).toEqual([...catalog].sort());
    expect(s.grants).toEqual([]);
    expect(s.twoFactorSetupRequired).toBe(false);
    // Exactly the seed's five fields in prefs, resolved and source.
    expect(s.prefs).toEqual({
      prefs: { theme: null, accent: null, density: null, locale: null, dir: null },
      resolved: {
        theme: 'system',
        accent: 'indigo',
        density: 'comfortable',
        locale: 'en',
        dir: 'ltr',
        source: { theme: 'system', accent: 'system', density: 'system', locale: 'system', dir: 'system' },
      },
    });
    expect(s.nav).toEqual({ sections: [] });
    expect(s.unreadNotifications).toBe(0);
    expect(s.publicApi).toEqual({ served: false, enabled: false });
    expect(s.onboarding.dismissed).toBe(false);
    expect(s.onboarding.steps.map((x: { id: string }) => x.id)).toEqual([
      'connect-database',
      'create-page',
      'invite-colleague',
      'enable-two-factor',
      'open-public-api',
      'install-add-on',
      'set-up-email',
    ]);
    expect(s.onboarding.completed).toBe(0);
    expect(s.onboarding.total).toBe(7);
    // The same object as GET /onboarding; GET /auth/session carries the same permissions.
    expect((await call(inst, admin, 'GET', '/api/v1/onboarding')).body.data).toEqual(s.onboarding);
    const session = await call(inst, admin, 'GET', '/api/v1/auth/session');
    expect(session.status).toBe(200);
    expect(session.body.data).toMatchObject({ permissions: s.permissions, grants: [] });
  });

  it('a viewer and a custom role see their own permissions, scoped grants, and only their steps; publicApi only with public-api.read', async () => {
    const viewer = (await activeUser(inst, admin, 'viewer@example.com', ['viewer'])).client;
    const v = (await boot(viewer)).body.data.session;
    expect(v.roles).toEqual(['viewer']);
    expect(v.permissions).toContain('pages.read');
    expect(v.permissions).not.toContain('users.write');
    expect(v.permissions).not.toContain('self');
    expect(v.publicApi).toBeUndefined();
    expect(v.onboarding.steps.map((x: { id: string }) => x.id)).toEqual(['enable-two-factor']);

    const connectionId = await addConnection(inst, admin, 'Fixture', source);
    const role = await roleWith(admin, 'Scoped readers', [
      { permission: 'public-api.read' },
      { permission: 'data.read', scope: { connectionId } },
      { permission: 'users.write' },
    ]);
    const custom = (await activeUser(inst, admin, 'custom@example.com', [role])).client;
    const c = (await boot(custom)).body.data.session;
    expect(c.roles).toEqual([role]);
    expect(c.permissions).toEqual(['data.read', 'public-api.read', 'users.write']);
    expect(c.grants).toEqual([{ permission: 'data.read', scope: { connectionId } }]);
    expect(c.publicApi).toEqual({ served: false, enabled: false });
    expect(c.onboarding.steps.map((x: { id: string }) => x.id)).toEqual(['invite-colleague', 'enable-two-factor']);
    const session = (await call(inst, custom, 'GET', '/api/v1/auth/session')).body.data;
    expect(session).toMatchObject({ permissions: c.permissions, grants: c.grants });
  });

  it('a bad or ended session cookie answers 401 AUTH_SESSION_INVALID and clears the cookie', async () => {
    const forged = inst.client();
    forged.setCookie('svc_session', 'not-a-signed-value');
    const bad = await boot(forged);
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('AUTH_SESSION_INVALID');
    expect(clearedSessionCookie(bad.headers)).toBe(true);

    const { id, client } = await activeUser(inst, admin, 'leaver@example.com', ['viewer']);
    expect((await boot(client)).status).toBe(200);
    await inst.app.kernel.db.deleteFrom('sessions').where('user_id', '=', id).execute();
    const ended = await boot(client);
    expect(ended.status).toBe(401);
    expect(ended.body.error.code).toBe('AUTH_SESSION_INVALID');
    expect(clearedSessionCookie(ended.headers)).toBe(true);
    // The client dropped the cleared cookie: the next call is signed out.
    expect((await boot(client)).body.data.session).toBeNull();
  });

  it('onboarding steps flip as the instance changes, and dismissal is per user and idempotent', async () => {
    // By now (earlier tests): a connection and more users exist.
    let o = (await call(inst, admin, 'GET', '/api/v1/onboarding')).body.data;
    expect(stepsOf(o)).toMatchObject({ 'connect-database': true, 'invite-colleague': true, 'create-page': false, 'set-up-email': false });

    const page = await call(inst, admin, 'POST', '/api/v1/pages', { title: 'Board', kind: 'dashboard' });
    expect(page.status, page.text).toBe(201);
    const email = await call(inst, admin, 'PUT', '/api/v1/settings/email', {
      smtp: { host: '127.0.0.1', port: 2525, security: 'none', user: null, from: 'a@b.co' },
    });
    expect(email.status, email.text).toBe(200);
    o = (await boot(admin)).body.data.session.onboarding;
    expect(stepsOf(o)).toMatchObject({ 'create-page': true, 'set-up-email': true });
    expect(o.completed).toBe(4);
    expect((await boot(inst.client())).body.data.instance.smtpConfigured).toBe(true);
    // The new page shows in the navigation.
    const nav = (await boot(admin)).body.data.session.nav;
    expect(nav.sections.flatMap((s: { entries: Array<{ slug?: string }> }) => s.entries.map((e) => e.slug))).toContain('board');

    const first = await call(inst, admin, 'POST', '/api/v1/onboarding/dismiss');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ data: { dismissed: true } });
    expect((await call(inst, admin, 'POST', '/api/v1/onboarding/dismiss')).body).toEqual({ data: { dismissed: true } });
    expect((await call(inst, admin, 'GET', '/api/v1/onboarding')).body.data.dismissed).toBe(true);
    expect((await boot(admin)).body.data.session.onboarding.dismissed).toBe(true);
    const viewer = (await activeUser(inst, admin, 'other@example.com', ['viewer'])).client;
    expect((await call(inst, viewer, 'GET', '/api/v1/onboarding')).body.data.dismissed).toBe(false);
  });

  it('unread notifications and preferences follow their writes', async () => {
    await inst.app.kernel.notifications.notify(adminId, { kind: 'test.ping', title: 'Ping' });
    const patched = await call(inst, admin, 'PATCH', '/api/v1/me/prefs', { theme: 'dark' });
    expect(patched.status, patched.text).toBe(200);
    const s = (await boot(admin)).body.data.session;
    expect(s.unreadNotifications).toBe(1);
    expect(s.prefs.prefs.theme).toBe('dark');
    expect(s.prefs.resolved.theme).toBe('dark');
  });

  it('onboarding needs a user: an API key answers 403 SESSION_REQUIRED and bootstraps without a session', async () => {
    const key = await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'script', roleId: 'viewer' });
    expect(key.status, key.text).toBe(201);
    const headers = { authorization: `Bearer ${key.body.data.secret}` };
    const res = await inst.client().get('/api/v1/onboarding', { headers });
    expect(res.status).toBe(403);
    expect((res.body as any).error.code).toBe('SESSION_REQUIRED');
    const b = await inst.client().get('/api/v1/bootstrap', { headers });
    expect(b.status).toBe(200);
    expect((b.body as any).data.session).toBeNull();
  });
}

describe('bootstrap and onboarding on a SQLite meta store', () => bootstrapFlows('sqlite'));
describe.skipIf(!pg)('bootstrap and onboarding on a PostgreSQL meta store', () => bootstrapFlows('postgres'));

describe('bootstrap reads what it keeps (decisions BO2)', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let adminId: string;
  afterAll(async () => inst?.close());

  it('a warm bootstrap answers from memory: a write it cannot see (another connection) is not read, one through this instance is', async () => {
    ({ inst, admin, adminId } = await bootWithAdmin());
    const unread = async () => (await call(inst, admin, 'GET', '/api/v1/bootstrap')).body.data.session.unreadNotifications;
    expect(await unread()).toBe(0);
    // Another connection writes the meta store, as another replica would: the write watch of this instance never sees it.
    const other = new Database(join(inst.dataDir, 'meta.sqlite'));
    try {
      other
        .prepare('insert into notifications (id, user_id, kind, title, body, link, created_at, read_at) values (?, ?, ?, ?, ?, ?, ?, ?)')
        .run('n-outside', adminId, 'test.outside', 'Outside', null, null, Date.now(), null);
    } finally {
      other.close();
    }
    // Kept: no statement asked the store (another replica's write shows within 5 s, K30).
    expect(await unread()).toBe(0);
    // A write in this process empties what it came from at once.
    await inst.app.kernel.notifications.notify(adminId, { kind: 'test.inside', title: 'Inside' });
    expect(await unread()).toBe(2);
  });
});

describe('bootstrap before setup', () => {
  let inst: TestInstance;
  afterAll(async () => inst?.close());
  it('says setup is open', async () => {
    inst = await startInstance();
    const res = await call(inst, inst.client(), 'GET', '/api/v1/bootstrap');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.setup).toEqual({ open: true });
    expect(res.body.data.session).toBeNull();
  });
});
