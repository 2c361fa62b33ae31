import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { TestSmtpServer, type ReceivedMail } from '../../test/helpers/smtp.js';
import { createUser, setupAdmin, signedIn } from './testing.js';

const smtp = new TestSmtpServer();
let inst: TestInstance;
let admin: HttpClient;

beforeAll(async () => {
  await smtp.start();
  inst = await startInstance();
  admin = await setupAdmin(inst);
  expect((await call(inst, admin, 'PUT', '/api/v1/settings/email', smtp.settings())).status).toBe(200);
});
afterAll(async () => {
  await inst?.close();
  await smtp.stop();
});

const login = (email: string, password: string) => call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email, password });

function tokenIn(mail: ReceivedMail, base: string): string {
  const m = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/reset-password\\?token=([A-Za-z0-9_%-]+)`).exec(mail.text);
  if (!m) throw new Error(`no reset link to ${base} in: ${mail.text}`);
  return decodeURIComponent(m[1]!);
}

/** Waits for the next mail to `to` beyond those already received. */
async function nextMailTo(to: string): Promise<ReceivedMail> {
  const seen = smtp.received.length;
  await smtp.waitFor(seen + 1);
  const mail = smtp.received.slice(seen).find((m) => m.to.includes(to));
  if (!mail) throw new Error(`the next mail was not to ${to}`);
  return mail;
}

/** Mails that arrived for `to`, after a pause long enough for a background send to land. */
async function mailsTo(to: string): Promise<ReceivedMail[]> {
  await new Promise((r) => setTimeout(r, 750));
  return smtp.received.filter((m) => m.to.includes(to));
}

describe('POST /auth/password/change', () => {
  it('refuses a wrong current password with AUTH_INVALID_CREDENTIALS and changes nothing', async () => {
    await createUser(inst, { email: 'keep@example.com' });
    const c = await signedIn(inst, 'keep@example.com');
    const res = await call(inst, c, 'POST', '/api/v1/auth/password/change', { currentPassword: 'wrong-password', newPassword: 'brand-new-pass' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
    expect((await login('keep@example.com', 'password-123')).status).toBe(200);
    // A failed attempt must not cost the caller their session.
    expect((await call(inst, c, 'GET', '/api/v1/auth/session')).status).toBe(200);
  });

  it('sets the new password and ends every other session of the user, not the current one', async () => {
    await createUser(inst, { email: 'change@example.com' });
    await createUser(inst, { email: 'bystander@example.com' });
    const current = await signedIn(inst, 'change@example.com');
    const other = await signedIn(inst, 'change@example.com');
    const bystander = await signedIn(inst, 'bystander@example.com');
    const res = await call(inst, current, 'POST', '/api/v1/auth/password/change', { currentPassword: 'password-123', newPassword: 'brand-new-pass' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ok: true } });
    expect((await call(inst, current, 'GET', '/api/v1/auth/session')).status).toBe(200);
    expect((await call(inst, other, 'GET', '/api/v1/auth/session')).body.error.code).toBe('AUTH_SESSION_INVALID');
    expect((await call(inst, bystander, 'GET', '/api/v1/auth/session')).status).toBe(200);
    const sessions = (await call(inst, current, 'GET', '/api/v1/auth/sessions')).body.data.sessions;
    expect(sessions).toHaveLength(1);
    expect(sessions[0].current).toBe(true);
    expect((await login('change@example.com', 'password-123')).status).toBe(401);
    expect((await login('change@example.com', 'brand-new-pass')).status).toBe(200);
    const row = await inst.app.kernel.db.selectFrom('users').select('password_hash').where('email', '=', 'change@example.com').executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
  });
});

describe('POST /auth/password/forgot and /auth/password/reset', () => {
  it('mail a single-use link; the reset sets the password and ends every session of the user', async () => {
    await createUser(inst, { email: 'forgot@example.com', name: 'Forgetful' });
    const signedInElsewhere = await signedIn(inst, 'forgot@example.com');
    const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/password/forgot', { email: 'Forgot@Example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ok: true } });
    const mail = await nextMailTo('forgot@example.com');
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toContain('Forgetful');
    const token = tokenIn(mail, inst.url);

    const reset = await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'after-reset-1' });
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ data: { ok: true } });
    expect((await call(inst, signedInElsewhere, 'GET', '/api/v1/auth/session')).body.error.code).toBe('AUTH_SESSION_INVALID');
    expect((await login('forgot@example.com', 'password-123')).status).toBe(401);
    expect((await login('forgot@example.com', 'after-reset-1')).status).toBe(200);

    const again = await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'after-reset-2' });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('AUTH_RESET_TOKEN_INVALID');
    expect((await login('forgot@example.com', 'after-reset-1')).status).toBe(200);
  });

  it('answer ok for an unknown e-mail and send nothing', async () => {
    const before = smtp.received.length;
    const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/password/forgot', { email: 'nobody@example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ok: true } });
    expect(await mailsTo('nobody@example.com')).toEqual([]);
    expect(smtp.received.length).toBe(before);
  });

  it('send nothing to a suspended or an invited user', async () => {
    await createUser(inst, { email: 'suspended@example.com', status: 'suspended' });
    await createUser(inst, { email: 'invited@example.com', status: 'invited', password: null });
    for (const email of ['suspended@example.com', 'invited@example.com']) {
      expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/password/forgot', { email })).status).toBe(200);
    }
    expect(await mailsTo('suspended@example.com')).toEqual([]);
    expect(await mailsTo('invited@example.com')).toEqual([]);
  });

  it('a newer link withdraws the older one', async () => {
    await createUser(inst, { email: 'twice@example.com' });
    await call(inst, inst.client(), 'POST', '/api/v1/auth/password/forgot', { email: 'twice@example.com' });
    const older = tokenIn(await nextMailTo('twice@example.com'), inst.url);
    await call(inst, inst.client(), 'POST', '/api/v1/auth/password/forgot', { email: 'twice@example.com' });
    const newer = tokenIn(await nextMailTo('twice@example.com'), inst.url);
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token: older, newPassword: 'whatever-123' })).body.error.code).toBe(
      'AUTH_RESET_TOKEN_INVALID',
    );
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token: newer, newPassword: 'whatever-123' })).status).toBe(200);
  });

  it('refuse an unknown or expired token with 400 AUTH_RESET_TOKEN_INVALID', async () => {
    const id = await createUser(inst, { email: 'expired@example.com' });
    const expired = await inst.app.kernel.identity.issuePasswordToken(id, 'reset', 0);
    for (const token of ['nope', expired]) {
      const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'whatever-123' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('AUTH_RESET_TOKEN_INVALID');
    }
    expect((await login('expired@example.com', 'password-123')).status).toBe(200);
  });

  it('take an invitation token too, which activates the invited user', async () => {
    const id = await createUser(inst, { email: 'newcomer@example.com', status: 'invited', password: null });
    const token = await inst.app.kernel.identity.issuePasswordToken(id, 'invite', 3600_000);
    const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'first-password' });
    expect(res.status).toBe(200);
    const row = await inst.app.kernel.db.selectFrom('users').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('active');
    const signIn = await login('newcomer@example.com', 'first-password');
    expect(signIn.status).toBe(200);
    expect(signIn.body.data.user.status).toBe('active');
  });

  it('do not reopen a suspended account', async () => {
    const id = await createUser(inst, { email: 'locked@example.com', status: 'suspended' });
    const token = await inst.app.kernel.identity.issuePasswordToken(id, 'reset', 3600_000);
    const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'new-password-1' });
    expect(res.body.error.code).toBe('AUTH_RESET_TOKEN_INVALID');
    expect((await login('locked@example.com', 'new-password-1')).status).toBe(401);
  });

  it('record the reset in the audit trail without the token or the password', async () => {
    const rows = await inst.app.kernel.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', 'in', ['auth.password-reset', 'auth.invite-accept', 'auth.password-forgot', 'auth.password-change'])
      .execute();
    expect(rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(['auth.password-reset', 'auth.invite-accept', 'auth.password-forgot', 'auth.password-change']),
    );
    const dump = JSON.stringify(rows);
    for (const secret of ['after-reset-1', 'first-password', 'brand-new-pass', 'password-123']) expect(dump).not.toContain(secret);
  });
});

describe('the reset link with SVC_BASE_URL', () => {
  it('points at the configured base URL, not at the request', async () => {
    const based = await startInstance({ env: { SVC_BASE_URL: 'https://admin.example.test/' } });
    try {
      const root = await setupAdmin(based);
      await call(based, root, 'PUT', '/api/v1/settings/email', smtp.settings());
      await createUser(based, { email: 'based@example.com' });
      await based.client().post('/api/v1/auth/password/forgot', { email: 'based@example.com' }, { headers: { origin: 'https://admin.example.test' } });
      const mail = await nextMailTo('based@example.com');
      const token = tokenIn(mail, 'https://admin.example.test');
      expect(mail.text).not.toContain(based.url);
      expect((await based.client().post('/api/v1/auth/password/reset', { token, newPassword: 'via-base-url' }, { noOrigin: true })).status).toBe(200);
    } finally {
      await based.close();
    }
  });
});
