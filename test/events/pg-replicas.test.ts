import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { HttpClient } from '../helpers/client.js';
import { PG_ADMIN_URL, databaseAvailable } from '../helpers/databases.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import {
  GateProxy,
  PINGED,
  SECRET,
  byN,
  createApiKey,
  createUserSession,
  eventTestPlugin,
  ping,
  setupAdmin,
  sse,
  throughProxy,
  ws,
  type SseStream,
  type WsStream,
} from './support.js';

const available = await databaseAvailable('postgres');

describe.runIf(available)('events across replicas on a PostgreSQL meta store', () => {
  // Both replicas sign cookies with one secret, as replicas behind one load balancer must.
  const env = { SVC_SECRET: randomBytes(32).toString('hex') };
  let a: TestInstance;
  let b: TestInstance;
  let admin: { client: HttpClient; userId: string; cookie: string };
  /** The same admin session, publishing through replica B. */
  let adminOnB: HttpClient;
  let viewerKey: Awaited<ReturnType<typeof createApiKey>>;
  let open: Array<SseStream | WsStream> = [];
  let seq = 0;
  const nextN = () => ++seq;
  const track = <T extends SseStream | WsStream>(s: T): T => {
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    a = await startInstance({ meta: 'postgres', plugins: [eventTestPlugin], env });
    b = await startInstance({ metaUrl: a.metaUrl!, plugins: [eventTestPlugin], env });
    expect(a.app.kernel.meta.dialect).toBe('postgres');
    expect(b.app.kernel.instanceId).not.toBe(a.app.kernel.instanceId);
    admin = await setupAdmin(a);
    adminOnB = b.client();
    adminOnB.setCookie('svc_session', admin.client.cookie('svc_session')!);
    viewerKey = await createApiKey(a, 'viewer');
  });

  afterEach(async () => {
    for (const s of open) {
      if ('socket' in s) await s.close();
      else s.close();
    }
    open = [];
  });

  afterAll(async () => {
    // A owns the temp database, so B must let go of it first.
    await b?.close();
    await a?.close();
  });

  it('carries an event published on one replica to SSE and WebSocket subscribers on the other', async () => {
    const onB = [track(await sse(b.url, { cookie: admin.cookie })), track(await ws(b.url, { headers: viewerKey.headers }))];
    const onA = [track(await sse(a.url, viewerKey.headers)), track(await ws(a.url, { headers: { cookie: admin.cookie }, origin: a.url }))];

    const fromA = nextN();
    await ping(admin.client, PINGED, { n: fromA, note: 'from a' });
    for (const s of onB) {
      const got = await s.inbox.waitFor(byN(PINGED, fromA), `${PINGED} #${fromA} on B`);
      expect(Object.keys(got).sort()).toEqual(['at', 'data', 'kind']);
      expect(got.data).toEqual({ n: fromA, note: 'from a' });
    }

    const fromB = nextN();
    await ping(adminOnB, PINGED, { n: fromB, note: 'from b' });
    for (const s of onA) await s.inbox.waitFor(byN(PINGED, fromB), `${PINGED} #${fromB} on A`);
  });

  it('delivers a replica its own event once, not again when its NOTIFY comes back', async () => {
    const onA = track(await sse(a.url, viewerKey.headers));
    const own = nextN();
    await ping(admin.client, PINGED, { n: own });
    await onA.inbox.waitFor(byN(PINGED, own), 'own event');
    // PostgreSQL delivers notifications in commit order, so A's echo of `own` would reach A
    // before B's later marker does.
    const marker = nextN();
    await ping(adminOnB, PINGED, { n: marker });
    await onA.inbox.waitFor(byN(PINGED, marker), 'marker from B');
    expect(onA.inbox.count(PINGED, own)).toBe(1);
  });

  it('keeps permission and audience filtering on the receiving replica', async () => {
    const other = await createUserSession(a, 'admin', 'other@example.com');
    const viewerOnB = track(await sse(b.url, viewerKey.headers));
    const otherOnB = track(await ws(b.url, { headers: { cookie: other.cookie }, origin: b.url }));
    const rootOnB = track(await sse(b.url, { cookie: admin.cookie }));

    const secret = nextN();
    const targeted = nextN();
    const marker = nextN();
    await ping(admin.client, SECRET, { n: secret });
    await ping(admin.client, PINGED, { n: targeted }, [other.userId]);
    await ping(admin.client, PINGED, { n: marker });

    await rootOnB.inbox.waitFor(byN(SECRET, secret), 'secret for admin on B');
    await otherOnB.inbox.waitFor(byN(PINGED, targeted), 'targeted event for its user on B');
    // Inline notifications from one publisher arrive in order: the marker comes last.
    for (const s of [viewerOnB, otherOnB, rootOnB]) await s.inbox.waitFor(byN(PINGED, marker), 'marker on B');
    expect(viewerOnB.inbox.seen.filter((e) => e.kind === SECRET)).toEqual([]);
    expect(viewerOnB.inbox.count(PINGED, targeted)).toBe(0);
    expect(rootOnB.inbox.count(PINGED, targeted)).toBe(0);
  });

  it('carries an event larger than a NOTIFY payload through the outbox table', async () => {
    const onB = [track(await sse(b.url, viewerKey.headers)), track(await ws(b.url, { headers: viewerKey.headers }))];
    const outboxRows = async () => (await sql<{ n: number }>`select count(*)::int as n from kernel_event_outbox`.execute(a.app.kernel.db)).rows[0]!.n;
    const before = await outboxRows();

    const big = nextN();
    const note = 'x'.repeat(20_000);
    await ping(admin.client, PINGED, { n: big, note });
    for (const s of onB) {
      const got = await s.inbox.waitFor(byN(PINGED, big), 'large event on B');
      expect(got.data).toEqual({ n: big, note });
    }
    expect(await outboxRows()).toBe(before + 1);

    // Fewer than 8000 characters but more than 8000 bytes: the NOTIFY limit counts bytes.
    const onA = track(await ws(a.url, { headers: viewerKey.headers }));
    const wide = nextN();
    const euros = '€'.repeat(3_000);
    await ping(adminOnB, PINGED, { n: wide, note: euros });
    const got = await onA.inbox.waitFor(byN(PINGED, wide), 'multi-byte event on A');
    expect(got.data).toEqual({ n: wide, note: euros });
    expect(await outboxRows()).toBe(before + 2);
  });

  describe('when the database connection of a replica is lost', () => {
    const pgAddress = new URL(PG_ADMIN_URL);
    let proxy: GateProxy;
    let c: TestInstance | undefined;

    /** Backends of this database whose last statement was the bridge's LISTEN, finished. */
    const listeners = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and state = 'idle' and query = 'LISTEN svc_events'`.execute(a.app.kernel.db)
      ).rows[0]!.n;

    beforeAll(async () => {
      proxy = new GateProxy(pgAddress.hostname, Number(pgAddress.port || 5432));
      await proxy.start();
    });

    afterEach(async () => {
      await c?.close();
      c = undefined;
    });

    afterAll(async () => {
      await proxy?.stop();
    });

    it('listens again once the database is back, and delivers what is published from then on', async () => {
      c = await startInstance({ metaUrl: throughProxy(a.metaUrl!, proxy.port), plugins: [eventTestPlugin], env });
      const onC = track(await sse(c.url, viewerKey.headers));
      const before = nextN();
      await ping(admin.client, PINGED, { n: before });
      await onC.inbox.waitFor(byN(PINGED, before), 'event before the outage');
      await vi.waitFor(async () => expect(await listeners()).toBe(3), { timeout: 5_000, interval: 50 });

      proxy.shutGate();
      // The bridge noticed: its reconnect attempt is the connection waiting at the gate.
      await proxy.waitForHeld();
      await vi.waitFor(async () => expect(await listeners()).toBe(2), { timeout: 5_000, interval: 50 });
      proxy.openGate();
      await vi.waitFor(async () => expect(await listeners()).toBe(3), { timeout: 10_000, interval: 50 });

      const after = nextN();
      await ping(admin.client, PINGED, { n: after });
      await onC.inbox.waitFor(byN(PINGED, after), 'event after the outage');
    });

    it('delivers what was published during the outage from the outbox, once, within the 5 s poll (D14)', async () => {
      c = await startInstance({ metaUrl: throughProxy(a.metaUrl!, proxy.port), plugins: [eventTestPlugin], env });
      const onC = track(await sse(c.url, viewerKey.headers));
      await vi.waitFor(async () => expect(await listeners()).toBe(3), { timeout: 5_000, interval: 50 });

      proxy.shutGate();
      await proxy.waitForHeld();
      await vi.waitFor(async () => expect(await listeners()).toBe(2), { timeout: 5_000, interval: 50 });
      // C's LISTEN is gone: this NOTIFY never reaches it; only the outbox still holds the event.
      const during = nextN();
      await ping(admin.client, PINGED, { n: during });
      proxy.openGate();
      await onC.inbox.waitFor(byN(PINGED, during), 'event published during the outage', 12_000);

      // From now on NOTIFY carries events again, and the poll does not repeat them.
      const after = nextN();
      await vi.waitFor(async () => expect(await listeners()).toBe(3), { timeout: 10_000, interval: 50 });
      await ping(admin.client, PINGED, { n: after });
      await onC.inbox.waitFor(byN(PINGED, after), 'event after the outage');
      await new Promise((r) => setTimeout(r, 5_500));
      expect(onC.inbox.count(PINGED, during)).toBe(1);
      expect(onC.inbox.count(PINGED, after)).toBe(1);
    }, 40_000);

    it('leaves no connection behind when it closes while reconnecting', async () => {
      c = await startInstance({ metaUrl: throughProxy(a.metaUrl!, proxy.port), plugins: [eventTestPlugin], env });
      proxy.shutGate();
      await proxy.waitForHeld();
      await c.close();
      c = undefined;
      // The attempt that was in flight completes only now, after close() has run.
      proxy.openGate();
      await vi.waitFor(() => expect(proxy.openSockets).toBe(0), { timeout: 5_000, interval: 50 });
    });
  });
});
