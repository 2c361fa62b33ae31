import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient, HttpResponse } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { createUser, signedIn } from './testing.js';

// The seed's field bounds: just inside passes validation, just outside is 400 naming the field.
let inst: TestInstance;
let user: HttpClient;

beforeAll(async () => {
  inst = await startInstance();
  await createUser(inst, { email: 'bounds@example.com' });
  user = await signedIn(inst, 'bounds@example.com');
});
afterAll(async () => {
  await inst?.close();
});

const s = (n: number) => 'x'.repeat(n);
const emailOf = (n: number) => `${'a'.repeat(n - '@b.co'.length)}@b.co`;

function expectRefused(res: HttpResponse, path: string): void {
  expect(res.status, `${path}: ${res.text}`).toBe(400);
  const error = (res.body as { error: { code: string; issues: Array<{ path: string }> } }).error;
  expect(error.code).toBe('VALIDATION_FAILED');
  expect(error.issues.map((i) => i.path)).toContain(path);
}

/** Passed validation: whatever the answer, it is not a refusal of the shape. */
function expectAccepted(res: HttpResponse, label: string): void {
  expect((res.body as { error?: { code: string } }).error?.code, `${label}: ${res.text}`).not.toBe('VALIDATION_FAILED');
}

async function checkBounds(
  c: HttpClient,
  method: string,
  url: string,
  base: Record<string, unknown>,
  field: string,
  inside: unknown[],
  outside: unknown[],
): Promise<void> {
  for (const value of inside) expectAccepted(await call(inst, c, method, url, { ...base, [field]: value }), `${url} ${field}=${String(value).length}`);
  for (const value of outside) expectRefused(await call(inst, c, method, url, { ...base, [field]: value }), `body.${field}`);
}

describe('POST /auth/login bounds', () => {
  const base = { email: 'bounds@example.com', password: 'password-123' };
  it('email is 3 to 320 characters, with no format check', async () => {
    await checkBounds(inst.client(), 'POST', '/api/v1/auth/login', base, 'email', ['a@b', emailOf(320)], ['ab', emailOf(321), 42]);
  });
  it('password is 1 to 200 characters', async () => {
    await checkBounds(inst.client(), 'POST', '/api/v1/auth/login', base, 'password', ['x', s(200)], ['', s(201)]);
  });
  it('both fields are required and nothing else is taken', async () => {
    expectRefused(await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { email: 'bounds@example.com' }), 'body.password');
    expectRefused(await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { password: 'password-123' }), 'body.email');
    expectRefused(await call(inst, inst.client(), 'POST', '/api/v1/auth/login', { ...base, remember: true }), 'body');
    expectRefused(await call(inst, inst.client(), 'POST', '/api/v1/auth/login'), 'body');
  });
});

describe('POST /auth/2fa/verify bounds', () => {
  const base = { challengeToken: 'unknown', code: '123456' };
  it('challengeToken is at least 1 character', async () => {
    await checkBounds(inst.client(), 'POST', '/api/v1/auth/2fa/verify', base, 'challengeToken', ['x', s(500)], ['']);
  });
  it('code is 6 to 20 characters', async () => {
    await checkBounds(inst.client(), 'POST', '/api/v1/auth/2fa/verify', base, 'code', [s(6), s(20)], [s(5), s(21)]);
  });
});

describe('POST /auth/password/change bounds', () => {
  it('currentPassword is 1 to 200 characters', async () => {
    await checkBounds(user, 'POST', '/api/v1/auth/password/change', { newPassword: 'new-password' }, 'currentPassword', ['x', s(200)], ['', s(201)]);
  });
  it('newPassword is 8 to 200 characters', async () => {
    // Each inside value really is set, so the next attempt uses it as the current password.
    let current = 'password-123';
    for (const next of [s(8), 'y'.repeat(200)]) {
      const res = await call(inst, user, 'POST', '/api/v1/auth/password/change', { currentPassword: current, newPassword: next });
      expect(res.status).toBe(200);
      current = next;
    }
    for (const bad of [s(7), s(201)])
      expectRefused(await call(inst, user, 'POST', '/api/v1/auth/password/change', { currentPassword: current, newPassword: bad }), 'body.newPassword');
  });
});

describe('POST /auth/password/forgot and /reset bounds', () => {
  it('forgot: email is 3 to 320 characters', async () => {
    await checkBounds(inst.client(), 'POST', '/api/v1/auth/password/forgot', {}, 'email', ['a@b', emailOf(320)], ['ab', emailOf(321)]);
  });
  it('reset: token is at least 1 character; newPassword is 8 to 200', async () => {
    const base = { token: 'unknown', newPassword: 'new-password' };
    await checkBounds(inst.client(), 'POST', '/api/v1/auth/password/reset', base, 'token', ['x', s(1000)], ['']);
    await checkBounds(inst.client(), 'POST', '/api/v1/auth/password/reset', base, 'newPassword', [s(8), s(200)], [s(7), s(201)]);
    const res = await call(inst, inst.client(), 'POST', '/api/v1/auth/password/reset', base);
    expect(res.body.error.code).toBe('AUTH_RESET_TOKEN_INVALID');
  });
});

describe('2FA enrolment bounds', () => {
  it('activate: code is 6 to 20 characters', async () => {
    await checkBounds(user, 'POST', '/api/v1/auth/2fa/activate', {}, 'code', [s(6), s(20)], [s(5), s(21)]);
  });
  it('disable: password is 1 to 200 characters, code is optional and 6 to 20', async () => {
    await checkBounds(user, 'POST', '/api/v1/auth/2fa/disable', { code: '123456' }, 'password', ['x', s(200)], ['', s(201)]);
    await checkBounds(user, 'POST', '/api/v1/auth/2fa/disable', { password: 'x' }, 'code', [s(6), s(20)], [s(5), s(21)]);
    expectRefused(await call(inst, user, 'POST', '/api/v1/auth/2fa/disable', {}), 'body.password');
  });
  it('enroll takes no body', async () => {
    expectRefused(await call(inst, user, 'POST', '/api/v1/auth/2fa/enroll', { secret: 'mine' }), 'body');
  });
});

describe('DELETE /auth/sessions/{id} bounds', () => {
  it('id is 1 to 64 characters', async () => {
    for (const id of ['x', s(64)]) {
      const res = await call(inst, user, 'DELETE', `/api/v1/auth/sessions/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expectRefused(await call(inst, user, 'DELETE', `/api/v1/auth/sessions/${s(65)}`), 'params.id');
  });
});
