// Helpers for the auth plugin's tests (imported by *.test.ts only).
import { generate } from 'otplib';
import { newId } from '../../kernel/ids.js';
import { hashPassword } from '../../kernel/identity/passwords.js';
import type { HttpClient } from '../../test/helpers/client.js';
import type { TestInstance } from '../../test/helpers/instance.js';

/** A clock a test moves by hand; pass `clock.now` to startInstance. */
export class TestClock {
  private at = Date.now();
  readonly now = (): number => this.at;
  advance(ms: number): void {
    this.at += ms;
  }
}

export interface NewUser {
  email: string;
  password?: string | null;
  name?: string;
  status?: 'active' | 'invited' | 'suspended';
  roles?: string[];
}

/**
 * Writes a user straight into the meta store: the users plugin is not what these tests are
 * about, and it must not be needed for signing in.
 */
export async function createUser(inst: TestInstance, u: NewUser): Promise<string> {
  const id = newId();
  const now = inst.app.kernel.now();
  const password = u.password === undefined ? 'password-123' : u.password;
  await inst.app.kernel.db
    .insertInto('users')
    .values({
      id,
      email: u.email,
      name: u.name ?? u.email.split('@')[0]!,
      status: u.status ?? 'active',
      password_hash: password === null ? null : await hashPassword(password),
      totp_enabled: 0,
      last_login_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  for (const role of u.roles ?? ['viewer']) await inst.app.kernel.db.insertInto('user_roles').values({ user_id: id, role_id: role }).execute();
  return id;
}

/** A fresh browser-like client signed in with a password (no 2FA). */
export async function signedIn(inst: TestInstance, email: string, password = 'password-123'): Promise<HttpClient> {
  const c = inst.client();
  const res = await c.post('/api/v1/auth/login', { email, password });
  if (res.status !== 200) throw new Error(`sign-in of ${email} answered ${res.status}: ${res.text}`);
  return c;
}

/** The TOTP code of `secret` at the instance clock's time, shifted by whole 30 s steps. */
export function totpAt(inst: TestInstance, secret: string, stepOffset = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(inst.app.kernel.now() / 1000) + stepOffset * 30 });
}

export async function setupAdmin(inst: TestInstance): Promise<HttpClient> {
  const admin = inst.client();
  const res = await admin.post('/api/v1/setup/super-admin', { email: 'root@example.com', password: 'root-password', name: 'Root' });
  if (res.status !== 201) throw new Error(`setup answered ${res.status}: ${res.text}`);
  return admin;
}

/** Enrols and activates 2FA for the signed-in client; answers the secret and the recovery codes. */
export async function turnOnTwoFactor(inst: TestInstance, c: HttpClient): Promise<{ secret: string; recoveryCodes: string[] }> {
  const enrolled = await c.post('/api/v1/auth/2fa/enroll');
  if (enrolled.status !== 200) throw new Error(`enroll answered ${enrolled.status}: ${enrolled.text}`);
  const secret = enrolled.body.data.secret as string;
  const activated = await c.post('/api/v1/auth/2fa/activate', { code: await totpAt(inst, secret) });
  if (activated.status !== 200) throw new Error(`activate answered ${activated.status}: ${activated.text}`);
  return { secret, recoveryCodes: activated.body.data.recoveryCodes as string[] };
}
