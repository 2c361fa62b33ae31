import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/contract.js';
import type { HttpClient } from './helpers/client.js';
import { databaseAvailable } from './helpers/databases.js';
import { startInstance, type MetaChoice, type TestInstance } from './helpers/instance.js';
import { TestSmtpServer } from './helpers/smtp.js';

const pg = await databaseAvailable('postgres');
const stores: MetaChoice[] = pg ? ['sqlite', 'postgres'] : ['sqlite'];

/** A whole administrator session over HTTP only, as the dashboard and a script would drive it. */
describe.each(stores)('a scripted identity session on a %s meta store', (meta) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let adminId = '';
  beforeAll(async () => {
    inst = await startInstance({ meta });
    const setup = await call(inst, inst.client(), 'POST', '/api/v1/setup/super-admin', {
      email: 'owner@example.com',
      password: 'owner-password',
      name: 'Owner',
    });
    adminId = setup.body.data.user.id;
    admin = inst.client();
    const login = await call(inst, admin, 'POST', '/api/v1/auth/login', { email: 'owner@example.com', password: 'owner-password' });
    expect(login.status).toBe(200);
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('creates a user, changes their role, makes and revokes a key, and the audit trail tells it in order', async () => {
    const created = await call(inst, admin, 'POST', '/api/v1/users', {
      email: 'staff@example.com',
      name: 'Staff',
      password: 'staff-password',
      roleIds: ['viewer'],
    });
    expect(created.status).toBe(201);
    const staffId = created.body.data.user.id as string;

    const staff = inst.client();
    expect((await call(inst, staff, 'POST', '/api/v1/auth/login', { email: 'staff@example.com', password: 'staff-password' })).status).toBe(200);
    const refused = await call(inst, staff, 'GET', '/api/v1/users');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'users.read' } });

    expect((await call(inst, admin, 'PUT', `/api/v1/users/${staffId}/roles`, { roleIds: ['editor'] })).status).toBe(200);
    const session = await call(inst, staff, 'GET', '/api/v1/auth/session');
    expect(session.body.data.roles).toEqual(['editor']);

    const key = await call(inst, admin, 'POST', '/api/v1/api-keys', { name: 'sync script', roleId: 'viewer' });
    expect(key.status).toBe(201);
    const secret = key.body.data.secret as string;
    expect(secret.startsWith('adm_sk_')).toBe(true);
    const script = inst.client();
    const bearer = { authorization: `Bearer ${secret}` };
    expect((await call(inst, script, 'GET', '/api/v1/about', undefined, bearer)).status).toBe(200);
    expect((await call(inst, script, 'GET', '/api/v1/users', undefined, bearer)).status).toBe(403);

    expect((await call(inst, admin, 'DELETE', `/api/v1/api-keys/${key.body.data.apiKey.id}`)).status).toBe(200);
    const revoked = await call(inst, script, 'GET', '/api/v1/about', undefined, bearer);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('AUTH_KEY_INVALID');

    const audit = await call(inst, admin, 'GET', `/api/v1/audit?actorId=${adminId}&limit=500`);
    const actions = (audit.body.data.entries as Array<{ action: string }>).map((e) => e.action).reverse();
    const wanted = ['users.create', 'users.roles.set', 'api-keys.create', 'api-keys.revoke'];
    expect(actions.filter((a) => wanted.includes(a))).toEqual(wanted);
    expect(audit.text).not.toContain(secret);
    expect(audit.text).not.toContain('staff-password');
  });

  it('invites a user by e-mail; the link sets a password, activates them, and they sign in', async () => {
    const smtp = new TestSmtpServer();
    await smtp.start();
    try {
      await call(inst, admin, 'PUT', '/api/v1/settings/email', smtp.settings());
      const invited = await call(inst, admin, 'POST', '/api/v1/users', { email: 'newbie@example.com', name: 'Newbie', roleIds: ['viewer'] });
      expect(invited.body.data.user.status).toBe('invited');
      const [mail] = await smtp.waitFor(1);
      expect(mail!.to).toEqual(['newbie@example.com']);
      const token = /accept-invite\?token=([A-Za-z0-9_-]+)/.exec(mail!.text)?.[1];
      expect(token).toBeDefined();
      const c = inst.client();
      expect((await call(inst, c, 'POST', '/api/v1/auth/login', { email: 'newbie@example.com', password: 'chosen-password' })).status).toBe(401);
      expect((await call(inst, c, 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'chosen-password' })).status).toBe(200);
      const login = await call(inst, c, 'POST', '/api/v1/auth/login', { email: 'newbie@example.com', password: 'chosen-password' });
      expect(login.status).toBe(200);
      expect(login.body.data.user.status).toBe('active');
      // The link works once.
      expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'another-password' })).body.error.code).toBe(
        'AUTH_RESET_TOKEN_INVALID',
      );
    } finally {
      await call(inst, admin, 'PUT', '/api/v1/settings/email', { smtp: null });
      await smtp.stop();
    }
  });

  it('signs out: the cookie stops working and the session leaves the list', async () => {
    const c = inst.client();
    await call(inst, c, 'POST', '/api/v1/auth/login', { email: 'owner@example.com', password: 'owner-password' });
    const list = await call(inst, c, 'GET', '/api/v1/auth/sessions');
    const current = list.body.data.sessions.find((s: { current: boolean }) => s.current);
    expect(current).toBeDefined();
    expect((await call(inst, c, 'POST', '/api/v1/auth/logout')).status).toBe(200);
    const after = await call(inst, admin, 'GET', '/api/v1/auth/sessions');
    expect(after.body.data.sessions.map((s: { id: string }) => s.id)).not.toContain(current.id);
  });
});
