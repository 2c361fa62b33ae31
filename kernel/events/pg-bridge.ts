import type pg from 'pg';
import { sql } from 'kysely';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { MetaDb } from '../meta/types.js';
import type { BusMessage, EventBridge, EventBus } from './bus.js';

const CHANNEL = 'svc_events';
// NOTIFY payloads are limited to 8000 bytes; a larger event travels as its outbox id alone.
const INLINE_LIMIT = 7000;
const OUTBOX_TTL_MS = 60_000;
/** D14's floor: how often a replica reads the outbox for events whose NOTIFY it missed. */
const POLL_MS = 5_000;
/** Each poll reads back this far before the last good one: commits land late, clocks differ. */
const POLL_OVERLAP_MS = 10_000;

interface Wire {
  origin: string;
  message?: BusMessage;
  outboxId?: string;
}

/**
 * Shares events between replicas on a PostgreSQL meta store. Every event is written to the
 * outbox table and announced by NOTIFY (inline when it fits, by its outbox id otherwise). One
 * dedicated connection LISTENs and reconnects with backoff when the store goes away; whatever
 * was announced while it was away is read from the outbox by a poll every 5 s (D14's floor).
 * Ids already delivered are remembered for the outbox's lifetime, so nothing arrives twice.
 */
export async function startPgBridge(opts: { url: string; db: MetaDb; bus: EventBus; instanceId: string; log: Logger }): Promise<EventBridge> {
  const { db, bus, instanceId, log } = opts;
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let backoff = 250;

  /** Outbox ids delivered (or published here), with when they may be forgotten. */
  const seen = new Map<string, number>();
  const deliverOnce = (id: string | undefined, message: BusMessage) => {
    if (id) {
      if (seen.has(id)) return;
      seen.set(id, Date.now() + OUTBOX_TTL_MS + POLL_OVERLAP_MS);
    }
    bus.deliverLocal(message);
  };

  const onNotification = async (n: pg.Notification) => {
    if (n.channel !== CHANNEL || !n.payload) return;
    try {
      const wire = JSON.parse(n.payload) as Wire;
      if (wire.origin === instanceId) return;
      bus.otherInstanceSeenAt = Date.now();
      let message = wire.message;
      if (!message && wire.outboxId) {
        const row = await sql<{ payload: string }>`select payload from kernel_event_outbox where id = ${wire.outboxId}`.execute(db);
        if (row.rows[0]) message = (JSON.parse(row.rows[0].payload) as Wire).message;
      }
      if (message) deliverOnce(wire.outboxId, message);
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'bad event notification ignored');
    }
  };

  // Polls from the last good one (less the overlap), so an outage is caught up once the store is back.
  let polledAt = Date.now();
  const poll = async () => {
    const startedAt = Date.now();
    const since = Math.max(polledAt - POLL_OVERLAP_MS, startedAt - OUTBOX_TTL_MS);
    const rows = await sql<{
      id: string;
      payload: string;
    }>`select id, payload from kernel_event_outbox where created_at > ${since} order by created_at, id`.execute(db);
    for (const row of rows.rows) {
      if (seen.has(row.id)) continue;
      const wire = JSON.parse(row.payload) as Wire;
      if (wire.origin === instanceId || !wire.message) seen.set(row.id, startedAt + OUTBOX_TTL_MS + POLL_OVERLAP_MS);
      else deliverOnce(row.id, wire.message);
    }
    polledAt = startedAt;
    for (const [id, until] of seen) if (until < startedAt) seen.delete(id);
  };
  const poller = setInterval(() => {
    if (!closed) void poll().catch(() => undefined);
  }, POLL_MS);
  poller.unref();

  const connect = async (): Promise<void> => {
    if (closed) return;
    const { default: driver } = await import('pg');
    const c = new driver.Client({ connectionString: opts.url, connectionTimeoutMillis: 3000 });
    c.on('notification', (n) => void onNotification(n));
    c.on('error', () => {
      /* handled by 'end' */
    });
    c.on('end', () => {
      if (client === c) client = null;
      schedule();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      if (closed) {
        // close() ran while this attempt was in flight and could not end a client it never saw.
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
        return;
      }
      client = c;
      backoff = 250;
    } catch {
      c.removeAllListeners('end');
      await c.end().catch(() => undefined);
      schedule();
    }
  };
  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, backoff);
    backoff = Math.min(backoff * 2, 5000);
  };

  await connect();
  // Rows are read within moments of their NOTIFY; sweep the stragglers even when no large event follows.
  const sweeper = setInterval(() => {
    void sql`delete from kernel_event_outbox where created_at < ${Date.now() - OUTBOX_TTL_MS}`.execute(db).catch(() => undefined);
  }, OUTBOX_TTL_MS);
  sweeper.unref();

  return {
    async forward(message) {
      const id = newId();
      const stored = JSON.stringify({ origin: instanceId, message } satisfies Wire);
      seen.set(id, Date.now() + OUTBOX_TTL_MS + POLL_OVERLAP_MS);
      let payload = JSON.stringify({ origin: instanceId, outboxId: id, message } satisfies Wire);
      if (Buffer.byteLength(payload) > INLINE_LIMIT) payload = JSON.stringify({ origin: instanceId, outboxId: id } satisfies Wire);
      // One statement: the row is committed before any replica can read the NOTIFY that names it.
      await sql`with stored as (insert into kernel_event_outbox (id, payload, created_at) values (${id}, ${stored}, ${Date.now()}) returning id)
        select pg_notify(${CHANNEL}, ${payload}) from stored`.execute(db);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(sweeper);
      clearInterval(poller);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
      }
    },
  };
}
