import { expect } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { startInstance, type InstanceOptions, type TestInstance } from '../../test/helpers/instance.js';

export const ROOT = { email: 'root@example.com', password: 'root-password', name: 'Root' };

/** A fresh instance whose super admin is signed in on `admin`. */
export async function bootWithAdmin(opts: InstanceOptions = {}): Promise<{ inst: TestInstance; admin: HttpClient; adminId: string }> {
  const inst = await startInstance(opts);
  const admin = inst.client();
  const res = await admin.post('/api/v1/setup/super-admin', ROOT);
  expect(res.status).toBe(201);
  return { inst, admin, adminId: res.body.data.user.id };
}

/** A client signed in as `userId` (the sign-in routes belong to another plugin). */
export async function sessionFor(inst: TestInstance, userId: string): Promise<HttpClient> {
  const session = await inst.app.kernel.identity.createSession(userId, { ip: null, userAgent: 'test' });
  const c = inst.client();
  c.setCookie('svc_session', inst.app.http.signCookie(session.token));
  return c;
}

/** An active user with these roles, created over HTTP by `admin`, and a session of theirs. */
export async function activeUser(inst: TestInstance, admin: HttpClient, email: string, roleIds: string[]): Promise<{ id: string; client: HttpClient }> {
  const res = await admin.post('/api/v1/users', { email, name: email.split('@')[0], password: 'long-enough-pw', roleIds });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.user.id, client: await sessionFor(inst, res.body.data.user.id) };
}

export const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** The 400 issue paths of a response, to assert the offending field is named. */
export const issuePaths = (res: { body: any }): string[] => (res.body?.error?.issues ?? []).map((i: { path: string }) => i.path);
