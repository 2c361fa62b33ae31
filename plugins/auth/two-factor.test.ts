import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { CHALLENGE_TTL_MS } from './challenges.js';
import { TestClock, createUser, setupAdmin, signedIn, totpAt, turnOnTwoFactor } from './testing.js';

const STEP_MS = 30_000;
const clock = new TestClock();
let inst: TestInstance;
let admin: HttpClient;

beforeAll(async () => {
  inst = await startInstance({ now: clock.now });
  admin = await setupAdmin(inst);
});
afterAll(async () => {
  await inst?.close();
});

/**
 * Moves the clock into a step no earlier test has used: past the next step too, which an
 * earlier test may have spent with a code from one step ahead.
 */
function nextStep(): void {
  clock.advance(2 * STEP_MS - (clock.now() % STEP_MS) + 1000);
}

async function challengeFor(email: string, password = 'password-123'): Promise<string> {
  const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email, password });
  expect(res.status).toBe(202);
  return res.body.data.challengeToken as string;
}

const verify = (c: HttpClient, challengeToken: string, code: string) => call(inst, c, 'POST', '/api/v1/auth/2fa/verify', { challengeToken, code });

describe('two-factor enrolment', () => {
  it('enrol answers a secret and an otpauth URL, and keeps the secret sealed until activation', async () => {
    const id = await createUser(inst, { email: 'enrol@example.com' });
    const c = await signedIn(inst, 'enrol@example.com');
    const res = await call(inst, c, 'POST', '/api/v1/auth/2fa/enroll');
    expect(res.status).toBe(200);
    const { secret, otpauthUrl } = res.body.data;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\//);
    expect(otpauthUrl).toContain(`secret=${secret}`);
    expect(decodeURIComponent(otpauthUrl)).toContain('enrol@example.com');
    const row = await inst.app.kernel.db
      .withTables<{ auth_totp: { user_id: string; pending_sealed: string | null; secret_sealed: string | null } }>()
      .selectFrom('auth_totp')
      .selectAll()
      .where('user_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.pending_sealed).not.toContain(secret);
    expect(row.secret_sealed).toBeNull();
    // Not on until activated: the password alone still signs in.
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'enrol@example.com', password: 'password-123' })).status).toBe(200);
  });

  it('activate refuses a wrong code, and a code of a secret replaced by a second enrolment', async () => {
    await createUser(inst, { email: 'reenrol@example.com' });
    const c = await signedIn(inst, 'reenrol@example.com');
    const first = (await call(inst, c, 'POST', '/api/v1/auth/2fa/enroll')).body.data.secret as string;
    const second = (await call(inst, c, 'POST', '/api/v1/auth/2fa/enroll')).body.data.secret as string;
    expect(second).not.toBe(first);
    const stale = await call(inst, c, 'POST', '/api/v1/auth/2fa/activate', { code: await totpAt(inst, first) });
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe('AUTH_INVALID_CODE');
    const right = await totpAt(inst, second);
    const wrong = await call(inst, c, 'POST', '/api/v1/auth/2fa/activate', { code: right === '000000' ? '111111' : '000000' });
    expect(wrong.body.error.code).toBe('AUTH_INVALID_CODE');
    const good = await call(inst, c, 'POST', '/api/v1/auth/2fa/activate', { code: right });
    expect(good.status).toBe(200);
  });

  it('activate without an enrolment answers 409 CONFLICT', async () => {
    await createUser(inst, { email: 'noenrol@example.com' });
    const c = await signedIn(inst, 'noenrol@example.com');
    const res = await call(inst, c, 'POST', '/api/v1/auth/2fa/activate', { code: '123456' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('CONFLICT');
  });

  it('activate answers 10 distinct recovery codes stored only as hashes, and turns 2FA on', async () => {
    const id = await createUser(inst, { email: 'activate@example.com' });
    const c = await signedIn(inst, 'activate@example.com');
    const { recoveryCodes } = await turnOnTwoFactor(inst, c);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const code of recoveryCodes) {
      expect(code.length).toBeGreaterThanOrEqual(6);
      expect(code.length).toBeLessThanOrEqual(20);
    }
    const stored = await inst.app.kernel.db
      .withTables<{ auth_recovery_codes: { user_id: string; code_hash: string } }>()
      .selectFrom('auth_recovery_codes')
      .select('code_hash')
      .where('user_id', '=', id)
      .execute();
    expect(stored).toHaveLength(10);
    const dump = JSON.stringify(stored);
    for (const code of recoveryCodes) {
      expect(dump).not.toContain(code);
      expect(dump).not.toContain(code.replace(/-/g, ''));
    }
    const session = await call(inst, c, 'GET', '/api/v1/auth/session');
    expect(session.body.data.user.totpEnabled).toBe(true);
    const again = await call(inst, c, 'POST', '/api/v1/auth/2fa/enroll');
    expect(again.status).toBe(409);
  });

  it('the enrolment routes need a signed-in user', async () => {
    for (const [path, body] of [
      ['/api/v1/auth/2fa/enroll', undefined],
      ['/api/v1/auth/2fa/activate', { code: '123456' }],
      ['/api/v1/auth/2fa/disable', { password: 'x' }],
    ] as const) {
      const res = await call(inst, inst.client(), 'POST', path, body);
      expect(res.status, path).toBe(401);
      expect(res.body.error.code).toBe('AUTH_REQUIRED');
    }
  });
});

describe('sign-in with 2FA (signed out → awaiting second factor → signed in)', () => {
  let secret: string;
  let recoveryCodes: string[];
  beforeAll(async () => {
    await createUser(inst, { email: 'tfa@example.com' });
    ({ secret, recoveryCodes } = await turnOnTwoFactor(inst, await signedIn(inst, 'tfa@example.com')));
  });

  it('login answers 202 with twoFactorRequired and a challenge token, and sets no cookie', async () => {
    const c = inst.client();
    const res = await call(inst, c, 'POST', '/api/v1/auth/login', { email: 'tfa@example.com', password: 'password-123' });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body.data).sort()).toEqual(['challengeToken', 'twoFactorRequired']);
    expect(res.body.data.twoFactorRequired).toBe(true);
    expect(res.body.data.challengeToken.length).toBeGreaterThanOrEqual(32);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(c.cookie('svc_session')).toBeUndefined();
    // The challenge is stored hashed.
    const rows = await inst.app.kernel.db
      .withTables<{ auth_challenges: { token_hash: string } }>()
      .selectFrom('auth_challenges')
      .select('token_hash')
      .execute();
    expect(JSON.stringify(rows)).not.toContain(res.body.data.challengeToken);
  });

  it('verify with a TOTP code answers 200 like login and sets the cookie; the same code is refused afterwards', async () => {
    nextStep();
    const code = await totpAt(inst, secret);
    const c = inst.client();
    const res = await verify(c, await challengeFor('tfa@example.com'), code);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['user']);
    expect(res.body.data.user).toMatchObject({ email: 'tfa@example.com', totpEnabled: true });
    expect(c.cookie('svc_session')).toBeDefined();
    expect((await call(inst, c, 'GET', '/api/v1/auth/session')).status).toBe(200);

    const replay = await verify(inst.client(), await challengeFor('tfa@example.com'), code);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('AUTH_INVALID_CODE');
  });

  it('refuses a replay even within the ±1 step tolerance, yet accepts the next step', async () => {
    nextStep();
    const used = await totpAt(inst, secret);
    expect((await verify(inst.client(), await challengeFor('tfa@example.com'), used)).status).toBe(200);
    clock.advance(STEP_MS); // `used` is now one step behind: inside the tolerance, but spent
    const challenge = await challengeFor('tfa@example.com');
    expect((await verify(inst.client(), challenge, used)).body.error.code).toBe('AUTH_INVALID_CODE');
    // A wrong code leaves the challenge usable.
    expect((await verify(inst.client(), challenge, await totpAt(inst, secret))).status).toBe(200);
  });

  it('accepts a code one step behind or ahead of the clock, not two', async () => {
    nextStep();
    clock.advance(3 * STEP_MS);
    const challenge = await challengeFor('tfa@example.com');
    expect((await verify(inst.client(), challenge, await totpAt(inst, secret, -2))).body.error.code).toBe('AUTH_INVALID_CODE');
    expect((await verify(inst.client(), challenge, await totpAt(inst, secret, -1))).status).toBe(200);
    clock.advance(3 * STEP_MS);
    const ahead = await challengeFor('tfa@example.com');
    expect((await verify(inst.client(), ahead, await totpAt(inst, secret, 2))).body.error.code).toBe('AUTH_INVALID_CODE');
    expect((await verify(inst.client(), ahead, await totpAt(inst, secret, 1))).status).toBe(200);
  });

  it('accepts each recovery code once, however it is typed', async () => {
    const first = recoveryCodes[0]!;
    expect((await verify(inst.client(), await challengeFor('tfa@example.com'), first)).status).toBe(200);
    const reuse = await verify(inst.client(), await challengeFor('tfa@example.com'), first);
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe('AUTH_INVALID_CODE');
    const typed = recoveryCodes[1]!.replace(/-/g, '').toUpperCase();
    expect((await verify(inst.client(), await challengeFor('tfa@example.com'), typed)).status).toBe(200);
    expect((await verify(inst.client(), await challengeFor('tfa@example.com'), recoveryCodes[1]!)).body.error.code).toBe('AUTH_INVALID_CODE');
  });

  it('a challenge is single use', async () => {
    nextStep();
    const challenge = await challengeFor('tfa@example.com');
    expect((await verify(inst.client(), challenge, await totpAt(inst, secret))).status).toBe(200);
    nextStep();
    const again = await verify(inst.client(), challenge, await totpAt(inst, secret));
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('AUTH_CHALLENGE_EXPIRED');
  });

  it('a challenge lives 5 minutes: just before it works, at 5 minutes it answers AUTH_CHALLENGE_EXPIRED', async () => {
    nextStep();
    const early = await challengeFor('tfa@example.com');
    clock.advance(CHALLENGE_TTL_MS - 1000);
    expect((await verify(inst.client(), early, await totpAt(inst, secret))).status).toBe(200);

    nextStep();
    const late = await challengeFor('tfa@example.com');
    clock.advance(CHALLENGE_TTL_MS);
    const res = await verify(inst.client(), late, await totpAt(inst, secret));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_CHALLENGE_EXPIRED');
  });

  it('an unknown challenge answers AUTH_CHALLENGE_EXPIRED', async () => {
    const res = await verify(inst.client(), 'no-such-challenge', '123456');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_CHALLENGE_EXPIRED');
  });

  it('a wrong password still answers AUTH_INVALID_CREDENTIALS, with no challenge', async () => {
    const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'tfa@example.com', password: 'wrong-password' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
  });
});

describe('POST /auth/2fa/disable', () => {
  it('needs the password; a code is optional, but a wrong one is refused; then sign-in takes the password alone', async () => {
    const id = await createUser(inst, { email: 'off@example.com' });
    const c = await signedIn(inst, 'off@example.com');
    const { secret } = await turnOnTwoFactor(inst, c);
    nextStep();
    const wrongPassword = await call(inst, c, 'POST', '/api/v1/auth/2fa/disable', { password: 'wrong-password', code: await totpAt(inst, secret) });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
    const wrongCode = await call(inst, c, 'POST', '/api/v1/auth/2fa/disable', { password: 'password-123', code: '12345678' });
    expect(wrongCode.status).toBe(401);
    expect(wrongCode.body.error.code).toBe('AUTH_INVALID_CODE');
    expect((await call(inst, c, 'GET', '/api/v1/auth/session')).body.data.user.totpEnabled).toBe(true);

    const res = await call(inst, c, 'POST', '/api/v1/auth/2fa/disable', { password: 'password-123', code: await totpAt(inst, secret) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ok: true } });
    expect((await call(inst, c, 'GET', '/api/v1/auth/session')).body.data.user.totpEnabled).toBe(false);
    const db = inst.app.kernel.db.withTables<{ auth_totp: { user_id: string }; auth_recovery_codes: { user_id: string } }>();
    expect(await db.selectFrom('auth_totp').select('user_id').where('user_id', '=', id).execute()).toEqual([]);
    expect(await db.selectFrom('auth_recovery_codes').select('user_id').where('user_id', '=', id).execute()).toEqual([]);
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'off@example.com', password: 'password-123' })).status).toBe(200);
  });

  it('with 2FA on takes the password alone (seed: the code is optional)', async () => {
    const id = await createUser(inst, { email: 'off4@example.com' });
    const c = await signedIn(inst, 'off4@example.com');
    await turnOnTwoFactor(inst, c);
    const res = await call(inst, c, 'POST', '/api/v1/auth/2fa/disable', { password: 'password-123' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ok: true } });
    expect((await call(inst, c, 'GET', '/api/v1/auth/session')).body.data.user.totpEnabled).toBe(false);
    const db = inst.app.kernel.db.withTables<{ auth_totp: { user_id: string } }>();
    expect(await db.selectFrom('auth_totp').select('user_id').where('user_id', '=', id).execute()).toEqual([]);
    expect((await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'off4@example.com', password: 'password-123' })).status).toBe(200);
  });

  it('accepts a recovery code as the code', async () => {
    await createUser(inst, { email: 'off2@example.com' });
    const c = await signedIn(inst, 'off2@example.com');
    const { recoveryCodes } = await turnOnTwoFactor(inst, c);
    expect((await call(inst, c, 'POST', '/api/v1/auth/2fa/disable', { password: 'password-123', code: recoveryCodes[3] })).status).toBe(200);
  });

  it('with 2FA off takes the password alone', async () => {
    await createUser(inst, { email: 'off3@example.com' });
    const c = await signedIn(inst, 'off3@example.com');
    expect((await call(inst, c, 'POST', '/api/v1/auth/2fa/disable', { password: 'password-123' })).status).toBe(200);
  });
});

describe('twoFactorSetupRequired through the whole flow', () => {
  it('is true at sign-in until the user enrols; after that sign-in goes through 2FA and it is absent', async () => {
    await createUser(inst, { email: 'must@example.com', roles: ['editor'] });
    await call(inst, admin, 'PUT', '/api/v1/settings/security', { requireTwoFactorForRoles: ['editor'] });
    try {
      const c = inst.client();
      const first = await call(inst, c, 'POST', '/api/v1/auth/login', { email: 'must@example.com', password: 'password-123' });
      expect(first.status).toBe(200);
      expect(first.body.data.twoFactorSetupRequired).toBe(true);
      nextStep();
      const { secret } = await turnOnTwoFactor(inst, c);
      expect((await call(inst, c, 'GET', '/api/v1/auth/session')).body.data.twoFactorSetupRequired).toBe(false);
      nextStep();
      const res = await verify(inst.client(), await challengeFor('must@example.com'), await totpAt(inst, secret));
      expect(res.status).toBe(200);
      expect('twoFactorSetupRequired' in res.body.data).toBe(false);
    } finally {
      await call(inst, admin, 'PUT', '/api/v1/settings/security', { requireTwoFactorForRoles: [] });
    }
  });
});
