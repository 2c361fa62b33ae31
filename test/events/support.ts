import http from 'node:http';
import net from 'node:net';
import { z } from 'zod';
import WebSocket from 'ws';
import { reply, route } from '../../kernel/contract/route.js';
import { dataOf } from '../../kernel/contract/shapes.js';
import type { EventEnvelope } from '../../kernel/events/bus.js';
import { newId } from '../../kernel/ids.js';
import { hashToken, randomToken } from '../../kernel/identity/tokens.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import type { HttpClient } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';

export const WAIT_MS = 5_000;

/** The test plugin's kinds: `pinged` is readable by viewers, `secret` only by admins. */
export const PINGED = 'evtest.pinged';
export const SECRET = 'evtest.secret';

const pingData = z.strictObject({ n: z.number().int(), note: z.string().max(200_000).optional() });

/**
 * Declares two event kinds guarded by permissions of its own and a route that publishes any
 * of them, optionally to an audience, so tests drive the bus through real HTTP.
 */
export const eventTestPlugin = definePlugin({
  name: 'evtest',
  version: '1.0.0',
  permissions: [
    { name: 'evtest.read', label: 'Read test events', description: 'Receives evtest.pinged', roles: ['viewer'] },
    { name: 'evtest.secret', label: 'Read secret test events', description: 'Receives evtest.secret (admin only)' },
    { name: 'evtest.publish', label: 'Publish test events', description: 'POST /evtest/ping (admin only)' },
  ],
  events: {
    [PINGED]: { schema: pingData, permission: 'evtest.read' },
    [SECRET]: { schema: pingData, permission: 'evtest.secret' },
  },
  routes: [
    route({
      method: 'POST',
      url: '/evtest/ping',
      summary: 'Publish a test event',
      permission: 'evtest.publish',
      schema: {
        body: z.strictObject({ kind: z.enum([PINGED, SECRET]), data: z.unknown(), userIds: z.array(z.string()).optional() }),
        response: { 202: dataOf(z.strictObject({ ok: z.literal(true) })) },
      },
      handler: async ({ kernel, body }) => {
        await kernel.events.publish(body.kind, body.data, body.userIds ? { userIds: body.userIds } : undefined);
        return reply(202, { data: { ok: true as const } });
      },
    }),
  ],
});

export async function ping(client: HttpClient, kind: string, data: unknown, userIds?: string[], headers?: Record<string, string>): Promise<void> {
  const res = await client.post('/api/v1/evtest/ping', { kind, data, ...(userIds ? { userIds } : {}) }, { headers });
  if (res.status !== 202) throw new Error(`publish ${kind} answered ${res.status}: ${res.text}`);
}

/** Creates the first admin through the real setup route; the client keeps its session cookie. */
export async function setupAdmin(inst: TestInstance, email = 'root@example.com'): Promise<{ client: HttpClient; userId: string; cookie: string }> {
  const client = inst.client();
  const res = await client.post('/api/v1/setup/super-admin', { email, password: 'correct horse battery', name: 'Root' });
  if (res.status !== 201) throw new Error(`setup answered ${res.status}: ${res.text}`);
  const value = client.cookie('svc_session');
  if (!value) throw new Error('setup did not set svc_session');
  return { client, userId: res.body.data.user.id, cookie: `svc_session=${value}` };
}

/** An api_keys row as the api-keys plugin would write it (only the hash is stored). */
export async function createApiKey(
  inst: TestInstance,
  roleId: 'admin' | 'editor' | 'viewer',
): Promise<{ id: string; token: string; headers: Record<string, string> }> {
  const token = 'adm_sk_' + randomToken(24);
  const id = newId();
  await inst.app.kernel.db
    .insertInto('api_keys')
    .values({
      id,
      name: `test ${roleId}`,
      role_id: roleId,
      prefix: token.slice(0, 12),
      key_hash: hashToken(token),
      created_by: null,
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  return { id, token, headers: { authorization: `Bearer ${token}` } };
}

/**
 * A second signed-in user: there is no users plugin yet, so the row goes in directly and the
 * session comes from the kernel's identity service; the cookie is signed like setSessionCookie's.
 */
export async function createUserSession(inst: TestInstance, roleId: 'admin' | 'editor' | 'viewer', email: string): Promise<{ userId: string; cookie: string }> {
  const now = Date.now();
  const userId = newId(now);
  const db = inst.app.kernel.db;
  await db
    .insertInto('users')
    .values({
      id: userId,
      email,
      name: email,
      status: 'active',
      password_hash: null,
      totp_enabled: 0,
      last_login_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db.insertInto('user_roles').values({ user_id: userId, role_id: roleId }).execute();
  const session = await inst.app.kernel.identity.createSession(userId, { ip: null, userAgent: null });
  return { userId, cookie: `svc_session=${encodeURIComponent(inst.app.http.signCookie(session.token))}` };
}

/** Collects envelopes and lets a test wait for one; `seen` keeps everything in arrival order. */
class Inbox {
  readonly seen: EventEnvelope[] = [];
  private waiters: Array<{ match: (e: EventEnvelope) => boolean; resolve: (e: EventEnvelope) => void }> = [];

  push(e: EventEnvelope): void {
    this.seen.push(e);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(e)) return true;
      w.resolve(e);
      return false;
    });
  }

  /** Resolves with the first envelope (already seen or still to come) that matches. */
  waitFor(match: (e: EventEnvelope) => boolean, what: string, timeoutMs = WAIT_MS): Promise<EventEnvelope> {
    const hit = this.seen.find(match);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`no event ${what} within ${timeoutMs} ms; got ${JSON.stringify(this.seen.map((s) => s.kind))}`));
      }, timeoutMs);
      const done = (e: EventEnvelope) => {
        clearTimeout(timer);
        resolve(e);
      };
      this.waiters.push({ match, resolve: done });
    });
  }

  /** Envelopes of `kind` whose data.n is `n`. */
  count(kind: string, n: number): number {
    return this.seen.filter((e) => e.kind === kind && (e.data as { n?: number }).n === n).length;
  }
}

export const byN = (kind: string, n: number) => (e: EventEnvelope) => e.kind === kind && (e.data as { n?: number }).n === n;

export interface Refusal {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface SseStream {
  inbox: Inbox;
  headers: http.IncomingHttpHeaders;
  /** Each raw `event:` line, to check the frame names the kind. */
  eventLines: string[];
  close(): void;
}

/**
 * Opens GET /api/v1/events. Resolves once the stream's `: ready` comment arrives (the
 * subscription exists by then), or with the refusal when the server answers otherwise.
 */
export function openSse(baseUrl: string, headers: Record<string, string> = {}): Promise<SseStream | Refusal> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}/api/v1/events`, { headers: { accept: 'text/event-stream', ...headers }, agent: false });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error('SSE stream did not open in time'));
    }, WAIT_MS);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          clearTimeout(timer);
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            /* not JSON: the assertion on body shows the text */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        return;
      }
      const stream: SseStream = { inbox: new Inbox(), headers: res.headers, eventLines: [], close: () => req.destroy() };
      let buffer = '';
      let ready = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const lines = frame.split('\n');
          if (!ready && lines.includes(': ready')) {
            ready = true;
            clearTimeout(timer);
            resolve(stream);
          }
          const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
          if (data.length === 0) continue;
          stream.eventLines.push(...lines.filter((l) => l.startsWith('event: ')));
          stream.inbox.push(JSON.parse(data.join('\n')) as EventEnvelope);
        }
      });
      res.on('error', () => undefined);
    });
  });
}

export interface WsStream {
  inbox: Inbox;
  ready: EventEnvelope;
  socket: WebSocket;
  close(): Promise<void>;
}

/**
 * Opens /ws. Resolves once the server's `ready` message arrives (the subscription exists by
 * then), or with the refusal when the server answers the upgrade with an HTTP error.
 */
export function openWs(baseUrl: string, opts: { headers?: Record<string, string>; origin?: string } = {}): Promise<WsStream | Refusal> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/ws', { headers: opts.headers, ...(opts.origin ? { origin: opts.origin } : {}) });
    const inbox = new Inbox();
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error('WebSocket did not open in time'));
    }, WAIT_MS);
    let ready: EventEnvelope | null = null;
    socket.on('unexpected-response', (_req, res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        clearTimeout(timer);
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON: the assertion on body shows the text */
        }
        socket.terminate();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('message', (raw) => {
      const e = JSON.parse(String(raw)) as EventEnvelope;
      if (!ready && e.kind === 'ready') {
        ready = e;
        clearTimeout(timer);
        resolve({
          inbox,
          ready: e,
          socket,
          close: () =>
            new Promise<void>((done) => {
              if (socket.readyState === WebSocket.CLOSED) return done();
              socket.once('close', () => done());
              socket.close();
            }),
        });
        return;
      }
      inbox.push(e);
    });
  });
}

export function isRefusal(x: SseStream | WsStream | Refusal): x is Refusal {
  return 'status' in x && !('inbox' in x);
}

export async function sse(baseUrl: string, headers?: Record<string, string>): Promise<SseStream> {
  const s = await openSse(baseUrl, headers);
  if (isRefusal(s)) throw new Error(`SSE refused with ${s.status}: ${JSON.stringify(s.body)}`);
  return s;
}

export async function ws(baseUrl: string, opts?: { headers?: Record<string, string>; origin?: string }): Promise<WsStream> {
  const s = await openWs(baseUrl, opts);
  if (isRefusal(s)) throw new Error(`WebSocket refused with ${s.status}: ${JSON.stringify(s.body)}`);
  return s;
}

export async function refusal(p: Promise<SseStream | WsStream | Refusal>): Promise<Refusal> {
  const s = await p;
  if (!isRefusal(s)) {
    if ('socket' in s) await s.close();
    else s.close();
    throw new Error('expected the server to refuse the connection, but it opened');
  }
  return s;
}

/**
 * A loopback TCP proxy whose gate can be shut: shutting drops every open connection and holds
 * new ones, unanswered, until it opens again. Lets a test catch a client mid-connect.
 */
export class GateProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private held: Array<() => void> = [];
  private heldWaiters: Array<() => void> = [];
  private shut = false;
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(): Promise<number> {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      const pipe = () => {
        if (client.destroyed) return;
        const upstream = net.connect(this.targetPort, this.targetHost);
        this.sockets.add(upstream);
        const done = () => {
          client.destroy();
          upstream.destroy();
          this.sockets.delete(upstream);
        };
        client.on('close', done);
        upstream.on('error', done).on('close', done);
        client.pipe(upstream).pipe(client);
      };
      if (!this.shut) return pipe();
      this.held.push(pipe);
      for (const w of this.heldWaiters.splice(0)) w();
    });
    await new Promise<void>((res) => this.server!.listen(0, '127.0.0.1', res));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  /** Drops every open connection; later ones wait for open(). */
  shutGate(): void {
    this.shut = true;
    for (const s of this.sockets) s.destroy();
  }

  /** Resolves once some connection is waiting at the shut gate. */
  waitForHeld(timeoutMs = WAIT_MS): Promise<void> {
    if (this.held.length > 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no connection reached the gate in time')), timeoutMs);
      this.heldWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  openGate(): void {
    this.shut = false;
    for (const pipe of this.held.splice(0)) pipe();
  }

  /** Connections (both sides) still open through the proxy. */
  get openSockets(): number {
    return this.sockets.size;
  }

  async stop(): Promise<void> {
    this.shutGate();
    this.held = [];
    await new Promise<void>((res) => (this.server ? this.server.close(() => res()) : res()));
  }
}

/** The meta store URL with its host and port replaced by a loopback proxy's. */
export function throughProxy(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}
