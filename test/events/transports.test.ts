import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HttpClient } from '../helpers/client.js';
import { expectContract } from '../helpers/contract.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import {
  PINGED,
  SECRET,
  byN,
  createApiKey,
  createUserSession,
  eventTestPlugin,
  openSse,
  openWs,
  ping,
  refusal,
  setupAdmin,
  sse,
  ws,
  type SseStream,
  type WsStream,
} from './support.js';

const TRUSTED_ORIGIN = 'https://trusted.example.com';

let inst: TestInstance;
let admin: { client: HttpClient; userId: string; cookie: string };
let viewerKey: Awaited<ReturnType<typeof createApiKey>>;
let adminKey: Awaited<ReturnType<typeof createApiKey>>;
let open: Array<SseStream | WsStream> = [];
let seq = 0;
/** A fresh data.n per event, so a test never matches an event of another test. */
const nextN = () => ++seq;

const track = <T extends SseStream | WsStream>(s: T): T => {
  open.push(s);
  return s;
};

beforeAll(async () => {
  inst = await startInstance({ plugins: [eventTestPlugin], env: { SVC_CORS_ORIGINS: TRUSTED_ORIGIN } });
  admin = await setupAdmin(inst);
  viewerKey = await createApiKey(inst, 'viewer');
  adminKey = await createApiKey(inst, 'admin');
});

afterEach(async () => {
  for (const s of open) {
    if ('socket' in s) await s.close();
    else s.close();
  }
  open = [];
});

afterAll(async () => {
  await inst?.close();
});

describe('delivery over SSE and WebSocket', () => {
  it('carries a published event as {kind, at, data} to an SSE and a WebSocket subscriber signed in by cookie', async () => {
    const stream = track(await sse(inst.url, { cookie: admin.cookie }));
    const socket = track(await ws(inst.url, { headers: { cookie: admin.cookie }, origin: inst.url }));
    expect(socket.ready.data).toEqual({ userId: admin.userId });

    const n = nextN();
    const before = Date.now();
    await ping(admin.client, PINGED, { n, note: 'hello' });

    for (const inbox of [stream.inbox, socket.inbox]) {
      const got = await inbox.waitFor(byN(PINGED, n), `${PINGED} #${n}`);
      expect(Object.keys(got).sort()).toEqual(['at', 'data', 'kind']);
      expect(got).toMatchObject({ kind: PINGED, data: { n, note: 'hello' } });
      expect(got.at).toBeGreaterThanOrEqual(before);
      expect(Number.isInteger(got.at)).toBe(true);
    }
    expect(stream.eventLines).toContain(`event: ${PINGED}`);
    expect(stream.headers['content-type']).toContain('text/event-stream');
    expect(stream.headers['cache-control']).toBe('no-store');
  });

  it('authenticates both transports by API key (Authorization: Bearer)', async () => {
    const stream = track(await sse(inst.url, viewerKey.headers));
    const socket = track(await ws(inst.url, { headers: viewerKey.headers }));
    expect(socket.ready.data).toEqual({ userId: null });

    const n = nextN();
    await ping(admin.client, PINGED, { n });
    await stream.inbox.waitFor(byN(PINGED, n), `${PINGED} #${n} over SSE`);
    await socket.inbox.waitFor(byN(PINGED, n), `${PINGED} #${n} over WS`);
  });

  it('sends the data as the kind schema parsed it, and publishes nothing when the data breaks it', async () => {
    const stream = track(await sse(inst.url, adminKey.headers));
    const bad = nextN();
    await expect(inst.app.kernel.events.publish(PINGED, { n: bad, extra: true })).rejects.toThrow();
    await expect(inst.app.kernel.events.publish('evtest.undeclared', { n: bad })).rejects.toThrow(/not declared/);
    const marker = nextN();
    await inst.app.kernel.events.publish(PINGED, { n: marker });
    // One stream delivers in publish order: once the later marker is here, the refused one would be too.
    await stream.inbox.waitFor(byN(PINGED, marker), 'marker');
    expect(stream.inbox.count(PINGED, bad)).toBe(0);
  });

  it('drops the subscription once its connection closes', async () => {
    const bus = inst.app.kernel.events;
    // Earlier tests' sockets are closed client-side; the server notices asynchronously.
    await vi.waitFor(() => expect(bus.subscriberCount).toBe(0), { timeout: 5_000, interval: 20 });
    const stream = await sse(inst.url, adminKey.headers);
    const socket = await ws(inst.url, { headers: adminKey.headers });
    expect(bus.subscriberCount).toBe(2);
    stream.close();
    await socket.close();
    await vi.waitFor(() => expect(bus.subscriberCount).toBe(0), { timeout: 5_000, interval: 20 });
  });

  it('answers HEAD on the stream with its headers at once, holding no subscription', async () => {
    const bus = inst.app.kernel.events;
    await vi.waitFor(() => expect(bus.subscriberCount).toBe(0), { timeout: 5_000, interval: 20 });
    const res = await fetch(`${inst.url}/api/v1/events`, { method: 'HEAD', headers: adminKey.headers, signal: AbortSignal.timeout(5_000) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(bus.subscriberCount).toBe(0);
  });
});

describe('refusing unauthenticated subscribers', () => {
  it('answers SSE without credentials with 401 AUTH_REQUIRED in the error envelope', async () => {
    const res = await inst.client().get('/api/v1/events');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body.error.code).toBe('AUTH_REQUIRED');
    expectContract(inst, 'GET', '/api/v1/events', res);
  });

  it('refuses the WebSocket upgrade without credentials with HTTP 401 AUTH_REQUIRED', async () => {
    const res = await refusal(openWs(inst.url, { origin: inst.url }));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_REQUIRED');
  });

  it('refuses an unknown or revoked API key and a forged session cookie on both transports', async () => {
    const unknown = { authorization: 'Bearer adm_sk_' + 'x'.repeat(32) };
    const revoked = await createApiKey(inst, 'admin');
    await inst.app.kernel.db.updateTable('api_keys').set({ revoked_at: Date.now() }).where('id', '=', revoked.id).execute();
    for (const headers of [unknown, revoked.headers]) {
      expect((await refusal(openSse(inst.url, headers))).body.error.code).toBe('AUTH_KEY_INVALID');
      expect((await refusal(openWs(inst.url, { headers }))).body.error.code).toBe('AUTH_KEY_INVALID');
    }
    const forged = { cookie: 'svc_session=not-a-signed-value' };
    expect((await refusal(openSse(inst.url, forged))).body.error.code).toBe('AUTH_SESSION_INVALID');
    expect((await refusal(openWs(inst.url, { headers: forged, origin: inst.url }))).body.error.code).toBe('AUTH_SESSION_INVALID');
  });
});

describe('what a subscriber may receive', () => {
  it("withholds a kind whose permission the viewer's role lacks, and delivers it to an admin", async () => {
    const viewerSse = track(await sse(inst.url, viewerKey.headers));
    const viewerWs = track(await ws(inst.url, { headers: viewerKey.headers }));
    const adminSse = track(await sse(inst.url, adminKey.headers));
    const adminWs = track(await ws(inst.url, { headers: { cookie: admin.cookie }, origin: inst.url }));

    const secret = nextN();
    const marker = nextN();
    await ping(admin.client, SECRET, { n: secret });
    await ping(admin.client, PINGED, { n: marker });

    for (const s of [adminSse, adminWs]) {
      await s.inbox.waitFor(byN(SECRET, secret), 'secret for admin');
      await s.inbox.waitFor(byN(PINGED, marker), 'marker for admin');
    }
    // The marker was published after the secret event on the same bus, so it arrives after it.
    for (const s of [viewerSse, viewerWs]) {
      await s.inbox.waitFor(byN(PINGED, marker), 'marker for viewer');
      expect(s.inbox.seen.filter((e) => e.kind === SECRET)).toEqual([]);
    }
  });

  it('delivers an event with an audience only to the listed users', async () => {
    const other = await createUserSession(inst, 'admin', 'other@example.com');
    const otherSse = track(await sse(inst.url, { cookie: other.cookie }));
    const otherWs = track(await ws(inst.url, { headers: { cookie: other.cookie }, origin: inst.url }));
    expect(otherWs.ready.data).toEqual({ userId: other.userId });
    const rootSse = track(await sse(inst.url, { cookie: admin.cookie }));
    const rootWs = track(await ws(inst.url, { headers: { cookie: admin.cookie }, origin: inst.url }));
    // An API key acts for no user, so no audience ever includes it, whatever its role.
    const keySse = track(await sse(inst.url, adminKey.headers));

    const targeted = nextN();
    const marker = nextN();
    await ping(admin.client, PINGED, { n: targeted }, [other.userId]);
    await ping(admin.client, PINGED, { n: marker });

    for (const s of [otherSse, otherWs]) {
      await s.inbox.waitFor(byN(PINGED, targeted), 'targeted event for its user');
      await s.inbox.waitFor(byN(PINGED, marker), 'marker');
    }
    for (const s of [rootSse, rootWs, keySse]) {
      await s.inbox.waitFor(byN(PINGED, marker), 'marker');
      expect(s.inbox.count(PINGED, targeted)).toBe(0);
    }
  });

  it('applies the permission to an audience member too', async () => {
    const viewer = await createUserSession(inst, 'viewer', 'viewer@example.com');
    const viewerSse = track(await sse(inst.url, { cookie: viewer.cookie }));
    const secret = nextN();
    const marker = nextN();
    await ping(admin.client, SECRET, { n: secret }, [viewer.userId]);
    await ping(admin.client, PINGED, { n: marker }, [viewer.userId]);
    await viewerSse.inbox.waitFor(byN(PINGED, marker), 'marker');
    expect(viewerSse.inbox.seen.filter((e) => e.kind === SECRET)).toEqual([]);
  });
});

describe('cross-site WebSocket hijacking', () => {
  it('refuses a cookie-authenticated upgrade from a foreign Origin with 403 CSRF_REFUSED', async () => {
    const res = await refusal(openWs(inst.url, { headers: { cookie: admin.cookie }, origin: 'https://evil.example.net' }));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CSRF_REFUSED');
    expect(res.body.error.params).toEqual({ origin: 'https://evil.example.net' });
  });

  it('refuses a cookie-authenticated upgrade with no Origin or the opaque "null" Origin', async () => {
    for (const origin of [undefined, 'null']) {
      const res = await refusal(openWs(inst.url, { headers: { cookie: admin.cookie, ...(origin ? { origin } : {}) } }));
      expect(res.status, `origin ${origin}`).toBe(403);
      expect(res.body.error.code).toBe('CSRF_REFUSED');
    }
  });

  it('accepts a cookie-authenticated upgrade from the instance itself or a listed CORS origin', async () => {
    const self = track(await ws(inst.url, { headers: { cookie: admin.cookie }, origin: inst.url }));
    const listed = track(await ws(inst.url, { headers: { cookie: admin.cookie }, origin: TRUSTED_ORIGIN }));
    const n = nextN();
    await ping(admin.client, PINGED, { n });
    await self.inbox.waitFor(byN(PINGED, n), 'event on same-origin socket');
    await listed.inbox.waitFor(byN(PINGED, n), 'event on listed-origin socket');
  });

  it('accepts an API key from any Origin, since a browser never attaches one by itself', async () => {
    const socket = track(await ws(inst.url, { headers: viewerKey.headers, origin: 'https://evil.example.net' }));
    expect(socket.ready.kind).toBe('ready');
  });
});

describe('SSE for a listed cross-origin dashboard', () => {
  it('answers the stream with the CORS headers a credentialed EventSource from that origin needs', async () => {
    const stream = track(await sse(inst.url, { cookie: admin.cookie, origin: TRUSTED_ORIGIN }));
    expect(stream.headers['access-control-allow-origin']).toBe(TRUSTED_ORIGIN);
    expect(stream.headers['access-control-allow-credentials']).toBe('true');
    expect(stream.headers['x-content-type-options']).toBe('nosniff');
    expect(typeof stream.headers['x-request-id']).toBe('string');
    const foreign = track(await sse(inst.url, { cookie: admin.cookie, origin: 'https://evil.example.net' }));
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });
});
