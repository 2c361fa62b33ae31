import type pg from 'pg';
import { sql } from 'kysely';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { MetaDb } from '../meta/types.js';
import type { BusMessage, EventBridge, EventBus } from './bus.js';

const CHANNEL = 'svc_events';
// NOTIFY payloads are limited to 8000 bytes; larger events go through the outbox table.
const INLINE_LIMIT = 7000;
const OUTBOX_TTL_MS = 60_000;

interface Wire {
  origin: string;
  message?: BusMessage;
  outboxId?: string;
}

/**
 * Shares events between replicas on a PostgreSQL meta store. One dedicated connection
 * LISTENs; it reconnects with backoff when the store goes away.
 */
export async function startPgBridge(opts: { url: string; db: MetaDb; bus: EventBus; instanceId: string; log: Logger }): Promise<EventBridge> {
  const { db, bus, instanceId, log } = opts;
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let backoff = 250;

  const onNotification = async (n: pg.Notification) => {
    if (n.channel !== CHANNEL || !n.payload) return;
    try {
      const wire = JSON.parse(n.payload) as Wire;
      if (wire.origin === instanceId) return;
      let message = wire.message;
      if (!message && wire.outboxId) {
        const row = await sql<{ payload: string }>`select payload from kernel_event_outbox where id = ${wire.outboxId}`.execute(db);
        if (row.rows[0]) message = JSON.parse(row.rows[0].payload) as BusMessage;
      }
      if (message) bus.deliverLocal(message);
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'bad event notification ignored');
    }
  };

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
      let payload = JSON.stringify({ origin: instanceId, message } satisfies Wire);
      if (Buffer.byteLength(payload) > INLINE_LIMIT) {
        const id = newId();
        const now = Date.now();
        await sql`insert into kernel_event_outbox (id, payload, created_at) values (${id}, ${JSON.stringify(message)}, ${now})`.execute(db);
        await sql`delete from kernel_event_outbox where created_at < ${now - OUTBOX_TTL_MS}`.execute(db);
        payload = JSON.stringify({ origin: instanceId, outboxId: id } satisfies Wire);
      }
      await sql`select pg_notify(${CHANNEL}, ${payload})`.execute(db);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(sweeper);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
      }
    },
  };
}
