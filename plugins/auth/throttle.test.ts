import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/helpers/contract.js';
import type { HttpResponse } from '../../test/helpers/client.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { TestClock, createUser, signedIn, totpAt, turnOnTwoFactor } from './testing.js';
import { FAILURES_PER_ACCOUNT, FAILURES_PER_ADDRESS } from '../../kernel/identity/password-guard.js';

// Every request comes from 127.0.0.1, so each scenario gets its own instance (and counters).
const WINDOW_MS = 15 * 60_000;
const SLOW = 180_000; // each refused sign-in costs one argon2 verify

const login = (inst: TestInstance, email: string, password: string) => call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email, password });

function expectThrottled(res: HttpResponse): number {
  expect(res.status).toBe(429);
  expect((res.body as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
  return retryAfter;
}

async function fail(inst: TestInstance, email: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const res = await login(inst, email, `wrong-${i}`);
    expect(res.status, `${email} attempt ${i + 1}`).toBe(401);
  }
}

describe('per account: 10 failed sign-ins in 15 minutes', () => {
  const clock = new TestClock();
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance({ now: clock.now });
    await createUser(inst, { email: 'target@example.com' });
    await createUser(inst, { email: 'neighbour@example.com' });
  });
  afterAll(async () => {
    await inst?.close();
  });

  it(
    'allows 10 failures, then answers 429 with Retry-After even to the right password, until the window passes',
    async () => {
      await fail(inst, 'target@example.com', FAILURES_PER_ACCOUNT - 1);
      clock.advance(60_000);
      await fail(inst, 'target@example.com', 1);
      const throttled = await login(inst, 'target@example.com', 'password-123');
      // Under the limit again once the oldest failure in the window ages out.
      expect(expectThrottled(throttled)).toBe(WINDOW_MS / 1000 - 60);
      expect(throttled.headers.getSetCookie()).toEqual([]);
      // The account key is the e-mail however it is typed.
      expectThrottled(await login(inst, ' TARGET@example.com', 'password-123'));
      // Another account from the same address is not affected.
      expect((await login(inst, 'neighbour@example.com', 'password-123')).status).toBe(200);

      clock.advance(WINDOW_MS - 60_000 - 1000);
      expect(expectThrottled(await login(inst, 'target@example.com', 'password-123'))).toBe(1);
      clock.advance(1000);
      expect((await login(inst, 'target@example.com', 'password-123')).status).toBe(200);
    },
    SLOW,
  );

  it(
    'throttles an unknown e-mail exactly like a real one, so the 429 reveals nothing',
    async () => {
      await fail(inst, 'ghost@example.com', FAILURES_PER_ACCOUNT);
      expectThrottled(await login(inst, 'ghost@example.com', 'password-123'));
      clock.advance(WINDOW_MS);
    },
    SLOW,
  );

  it(
    'counts wrong second-factor codes against the account',
    async () => {
      await createUser(inst, { email: 'tfa@example.com' });
      const { secret } = await turnOnTwoFactor(inst, await signedIn(inst, 'tfa@example.com'));
      clock.advance(120_000);
      const challenge = (await login(inst, 'tfa@example.com', 'password-123')).body.data.challengeToken as string;
      const right = await totpAt(inst, secret);
      const wrong = right === '000000' ? '111111' : '000000';
      for (let i = 0; i < FAILURES_PER_ACCOUNT; i++) {
        const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/2fa/verify', { challengeToken: challenge, code: wrong });
        expect(res.body.error.code).toBe('AUTH_INVALID_CODE');
      }
      expectThrottled(await call(inst, inst.client(), 'POST', '/api/v1/auth/2fa/verify', { challengeToken: challenge, code: right }));
      expectThrottled(await login(inst, 'tfa@example.com', 'password-123'));
      clock.advance(WINDOW_MS);
    },
    SLOW,
  );
  it(
    'counts wrong current passwords on a password change, so a stolen session cannot guess the password',
    async () => {
      await createUser(inst, { email: 'changer@example.com' });
      const c = await signedIn(inst, 'changer@example.com');
      for (let i = 0; i < FAILURES_PER_ACCOUNT; i++) {
        const res = await call(inst, c, 'POST', '/api/v1/auth/password/change', { currentPassword: `guess-${i}`, newPassword: 'new-password-1' });
        expect(res.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
      }
      expectThrottled(await call(inst, c, 'POST', '/api/v1/auth/password/change', { currentPassword: 'password-123', newPassword: 'new-password-1' }));
      expectThrottled(await call(inst, c, 'POST', '/api/v1/auth/2fa/disable', { password: 'password-123' }));
      clock.advance(WINDOW_MS);
      expect((await call(inst, c, 'POST', '/api/v1/auth/password/change', { currentPassword: 'password-123', newPassword: 'new-password-1' })).status).toBe(
        200,
      );
    },
    SLOW,
  );
});

describe('per address: 30 failed sign-ins in 15 minutes', () => {
  const clock = new TestClock();
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance({ now: clock.now });
    await createUser(inst, { email: 'fresh@example.com' });
  });
  afterAll(async () => {
    await inst?.close();
  });

  it(
    'answers 429 to every account from the address after 30 failures spread over several accounts',
    async () => {
      // 9 + 9 + 9 + 3: no account reaches its own limit of 10.
      const spread: Array<[string, number]> = [
        ['a@example.com', 9],
        ['b@example.com', 9],
        ['c@example.com', 9],
        ['d@example.com', 3],
      ];
      expect(spread.reduce((n, [, k]) => n + k, 0)).toBe(FAILURES_PER_ADDRESS);
      for (const [email, times] of spread.slice(0, 3)) await fail(inst, email, times);
      await fail(inst, 'd@example.com', 2);
      // 29 failures: the address still signs in.
      expect((await login(inst, 'fresh@example.com', 'password-123')).status).toBe(200);
      await fail(inst, 'd@example.com', 1);
      expectThrottled(await login(inst, 'fresh@example.com', 'password-123'));
      expectThrottled(await login(inst, 'e@example.com', 'anything'));
      clock.advance(WINDOW_MS);
      expect((await login(inst, 'fresh@example.com', 'password-123')).status).toBe(200);
    },
    SLOW,
  );
});
