/** Identity fixtures shared by the plugin tests: a signed-in admin, more users, keys, an event stream. */
import { expect } from 'vitest';
import type { HttpClient } from './client.js';
import { startInstance, type InstanceOptions, type TestInstance } from './instance.js';
import { newId } from '../../kernel/ids.js';
import { hashPassword } from '../../kernel/identity/passwords.js';
import { hashToken, randomToken } from '../../kernel/identity/tokens.js';

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

/** The first admin through the real setup route; the client keeps the session cookie. */
export async function setupAdmin(inst: TestInstance): Promise<{ client: HttpClient; userId: string }> {
  const client = inst.client();
  const res = await client.post('/api/v1/setup/super-admin', ROOT);
  if (res.status !== 201) throw new Error(`setup answered ${res.status}: ${res.text}`);
  return { client, userId: res.body.data.user.id };
}

/** Another signed-in user, written straight to the store (the users plugin is not ours). */
export async function addUser(
  inst: TestInstance,
  opts: { role: 'admin' | 'editor' | 'viewer'; email: string; password?: string },
): Promise<{ client: HttpClient; userId: string }> {
  const now = Date.now();
  const userId = newId(now);
  const db = inst.app.kernel.db;
  await db
    .insertInto('users')
    .values({
      id: userId,
      email: opts.email,
      name: opts.email.split('@')[0]!,
      status: 'active',
      password_hash: opts.password ? await hashPassword(opts.password) : null,
      totp_enabled: 0,
      last_login_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db.insertInto('user_roles').values({ user_id: userId, role_id: opts.role }).execute();
  const session = await inst.app.kernel.identity.createSession(userId, { ip: null, userAgent: null });
  const client = inst.client();
  client.setCookie('svc_session', inst.app.http.signCookie(session.token));
  return { client, userId };
}

/** An adm_sk_ key row as the api-keys plugin writes it; answers the Authorization header. */
export async function addApiKey(inst: TestInstance, roleId: 'admin' | 'viewer'): Promise<Record<string, string>> {
  const token = 'adm_sk_' + randomToken(24);
  await inst.app.kernel.db
    .insertInto('api_keys')
    .values({
      id: newId(),
      name: `key ${roleId}`,
      role_id: roleId,
      prefix: token.slice(0, 12),
      key_hash: hashToken(token),
      created_by: null,
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return { authorization: `Bearer ${token}` };
}

export interface SseStream {
  /** Events received so far, as `{kind, at, data}`. */
  readonly events: Array<{ kind: string; at: number; data: any }>;
  /** Resolves with the first event matching, or rejects after `timeoutMs`. */
  waitFor(match: (e: { kind: string; data: any }) => boolean, timeoutMs?: number): Promise<{ kind: string; data: any }>;
  close(): void;
}

/** GET /api/v1/events with the client's cookie, read as a stream; resolves once subscribed. */
export async function openEvents(inst: TestInstance, client: HttpClient): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(`${inst.url}/api/v1/events`, { headers: { cookie: `svc_session=${client.cookie('svc_session')}` }, signal: abort.signal });
  if (res.status !== 200) throw new Error(`events answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseStream['events'] = [];
  const listeners = new Set<() => void>();
  let buffer = '';
  let ready!: () => void;
  const subscribed = new Promise<void>((r) => (ready = r));
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          // The server subscribes before it writes ": ready".
          if (frame.includes(': ready')) ready();
          const data = frame.split('\n').find((l) => l.startsWith('data: '));
          if (data) events.push(JSON.parse(data.slice(6)));
        }
        for (const l of listeners) l();
      }
    } catch {
      // aborted by close()
    }
  })();
  await subscribed;
  return {
    events,
    waitFor(match, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.find(match);
          if (!hit) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.kind))}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}
