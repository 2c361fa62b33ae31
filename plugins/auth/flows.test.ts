import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type MetaChoice, type TestInstance } from '../../test/helpers/instance.js';
import { TestSmtpServer } from '../../test/helpers/smtp.js';
import { TestClock, createUser, setupAdmin, signedIn, totpAt } from './testing.js';

// The main flows end to end on each meta store the tables must work on.
const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

function mainFlows(meta: MetaChoice): void {
  const clock = new TestClock();
  const smtp = new TestSmtpServer();
  let inst: TestInstance;
  let admin: HttpClient;
  const stepOn = () => clock.advance(60_000 - (clock.now() % 30_000) + 1000);

  beforeAll(async () => {
    await smtp.start();
    inst = await startInstance({ meta, now: clock.now });
    admin = await setupAdmin(inst);
    await call(inst, admin, 'PUT', '/api/v1/settings/email', smtp.settings());
  });
  afterAll(async () => {
    await inst?.close();
    await smtp.stop();
  });

  it('signs in, lists and ends sessions, signs out', async () => {
    await createUser(inst, { email: 'walk@example.com' });
    const a = await signedIn(inst, 'walk@example.com');
    const b = await signedIn(inst, 'walk@example.com');
    const session = await call(inst, a, 'GET', '/api/v1/auth/session');
    expect(session.body.data).toMatchObject({ user: { email: 'walk@example.com' }, roles: ['viewer'], twoFactorSetupRequired: false });
    const sessions = (await call(inst, a, 'GET', '/api/v1/auth/sessions')).body.data.sessions as Array<{ id: string; current: boolean }>;
    expect(sessions).toHaveLength(2);
    expect((await call(inst, a, 'DELETE', `/api/v1/auth/sessions/${sessions.find((s) => !s.current)!.id}`)).status).toBe(200);
    expect((await call(inst, b, 'GET', '/api/v1/auth/session')).status).toBe(401);
    expect((await call(inst, a, 'POST', '/api/v1/auth/logout')).body).toEqual({ data: { ok: true } });
    expect((await call(inst, a, 'GET', '/api/v1/auth/session')).status).toBe(401);
    const wrong = await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'walk@example.com', password: 'wrong-password' });
    expect(wrong.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
  });

  it('enrols 2FA, signs in through the challenge, refuses a replayed code and a reused recovery code, disables', async () => {
    await createUser(inst, { email: 'tfa@example.com' });
    const c = await signedIn(inst, 'tfa@example.com');
    const { secret } = (await call(inst, c, 'POST', '/api/v1/auth/2fa/enroll')).body.data;
    const activated = await call(inst, c, 'POST', '/api/v1/auth/2fa/activate', { code: await totpAt(inst, secret) });
    expect(activated.status).toBe(200);
    const recoveryCodes = activated.body.data.recoveryCodes as string[];
    expect(recoveryCodes).toHaveLength(10);

    const challenge = async () => {
      const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'tfa@example.com', password: 'password-123' });
      expect(res.status).toBe(202);
      expect(res.body.data.twoFactorRequired).toBe(true);
      return res.body.data.challengeToken as string;
    };
    stepOn();
    const code = await totpAt(inst, secret);
    const signedInWith2fa = inst.client();
    const ok = await call(inst, signedInWith2fa, 'POST', '/api/v1/auth/2fa/verify', { challengeToken: await challenge(), code });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.totpEnabled).toBe(true);
    const replay = await call(inst, inst.client(), 'POST', '/api/v1/auth/2fa/verify', { challengeToken: await challenge(), code });
    expect(replay.body.error.code).toBe('AUTH_INVALID_CODE');

    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/2fa/verify', { challengeToken: await challenge(), code: recoveryCodes[0] })).status).toBe(
      200,
    );
    const reuse = await call(inst, inst.client(), 'POST', '/api/v1/auth/2fa/verify', { challengeToken: await challenge(), code: recoveryCodes[0] });
    expect(reuse.body.error.code).toBe('AUTH_INVALID_CODE');

    const expiring = await challenge();
    clock.advance(5 * 60_000);
    stepOn();
    const expired = await call(inst, inst.client(), 'POST', '/api/v1/auth/2fa/verify', { challengeToken: expiring, code: await totpAt(inst, secret) });
    expect(expired.body.error.code).toBe('AUTH_CHALLENGE_EXPIRED');

    const disabled = await call(inst, signedInWith2fa, 'POST', '/api/v1/auth/2fa/disable', { password: 'password-123', code: await totpAt(inst, secret) });
    expect(disabled.status).toBe(200);
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'tfa@example.com', password: 'password-123' })).status).toBe(200);
  });

  it('changes the password, ending the other sessions; resets it through a mailed link once', async () => {
    await createUser(inst, { email: 'pw@example.com' });
    const current = await signedIn(inst, 'pw@example.com');
    const other = await signedIn(inst, 'pw@example.com');
    expect((await call(inst, current, 'POST', '/api/v1/auth/password/change', { currentPassword: 'password-123', newPassword: 'changed-pass' })).status).toBe(
      200,
    );
    expect((await call(inst, other, 'GET', '/api/v1/auth/session')).status).toBe(401);
    expect((await call(inst, current, 'GET', '/api/v1/auth/session')).status).toBe(200);

    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/password/forgot', { email: 'pw@example.com' })).status).toBe(200);
    const [mail] = await smtp.waitFor(1);
    const token = decodeURIComponent(/reset-password\?token=([A-Za-z0-9_%-]+)/.exec(mail!.text)![1]!);
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'reset-pass-1' })).status).toBe(200);
    expect((await call(inst, current, 'GET', '/api/v1/auth/session')).status).toBe(401);
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', { token, newPassword: 'reset-pass-2' })).body.error.code).toBe(
      'AUTH_RESET_TOKEN_INVALID',
    );
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'pw@example.com', password: 'reset-pass-1' })).status).toBe(200);
  });

  it("refuses a deleted user's cookie", async () => {
    const id = await createUser(inst, { email: 'deleted@example.com' });
    const c = await signedIn(inst, 'deleted@example.com');
    await inst.app.kernel.db.deleteFrom('users').where('id', '=', id).execute();
    expect((await call(inst, c, 'GET', '/api/v1/auth/session')).body.error.code).toBe('AUTH_SESSION_INVALID');
  });
}

describe('auth flows on SQLite', () => mainFlows('sqlite'));
describe.runIf(pg)('auth flows on PostgreSQL', () => mainFlows('postgres'));
describe.runIf(mysql)('auth flows on MariaDB/MySQL', () => mainFlows('mysql'));
