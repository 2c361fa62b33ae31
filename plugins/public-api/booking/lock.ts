import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { RowsDialectName } from '../../../engine/rows/types.js';
import { slotBusy } from '../errors.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** How long a booking waits for another one of the same slot before answering PUBLIC_SLOT_BUSY. */
export const SLOT_LOCK_WAIT_S = 5;

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** A signed 64-bit advisory-lock key (PostgreSQL's lock space is one bigint). */
function advisoryKey(key: string): string {
  return digest(key).readBigInt64BE(0).toString();
}

/** GET_LOCK names are at most 64 characters. */
function namedLock(key: string): string {
  return `svc_slot_${digest(key).toString('hex').slice(0, 48)}`;
}

async function postgres<T>(db: AnyDb, keys: string[], fn: (trx: AnyDb) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`set local lock_timeout = ${sql.lit(`${SLOT_LOCK_WAIT_S}s`)}`.execute(trx);
    for (const k of keys) await sql`select pg_advisory_xact_lock(cast(${advisoryKey(k)} as bigint))`.execute(trx);
    return fn(trx);
  });
}

/**
 * GET_LOCK belongs to the connection, not the transaction: it is taken before BEGIN (so the
 * transaction's first read already sees the previous holder's commit under REPEATABLE READ)
 * and released after COMMIT or ROLLBACK, on the same pooled connection.
 */
async function mysql<T>(db: AnyDb, keys: string[], fn: (trx: AnyDb) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    const held: string[] = [];
    try {
      for (const k of keys) {
        const name = namedLock(k);
        const res = await sql<{ l: number | string | null }>`select get_lock(${name}, ${SLOT_LOCK_WAIT_S}) as l`.execute(conn);
        if (Number(res.rows[0]?.l) !== 1) throw slotBusy();
        held.push(name);
      }
      return await conn.transaction().execute(fn);
    } finally {
      for (const name of held) await sql`select release_lock(${name})`.execute(conn).catch(() => undefined);
    }
  });
}

/** BEGIN IMMEDIATE takes SQLite's one write lock up front, so the capacity read cannot go stale. */
async function sqlite<T>(db: AnyDb, fn: (trx: AnyDb) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const out = await fn(conn);
      await sql`commit`.execute(conn);
      return out;
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}

/**
 * Runs `fn` in one transaction holding a lock per slot key (sorted, so two bookings of the same
 * slots never wait on each other in opposite orders). The capacity check and the write both
 * happen inside, so two guests cannot both take the last places.
 */
export async function withSlotLocks<T>(db: AnyDb, dialect: RowsDialectName, slotKeys: readonly string[], fn: (trx: AnyDb) => Promise<T>): Promise<T> {
  const keys = [...new Set(slotKeys)].sort();
  if (dialect === 'sqlite') return sqlite(db, fn);
  if (keys.length === 0) return db.transaction().execute(fn);
  return dialect === 'postgres' ? postgres(db, keys, fn) : mysql(db, keys, fn);
}

/** A write that lost to another at the same instant (lock wait, deadlock, serialisation, SQLite busy). */
export function isContention(dialect: RowsDialectName, err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown };
  if (dialect === 'postgres') return ['55P03', '40001', '40P01'].includes(String(e?.code));
  if (dialect === 'mysql') return [1205, 1213].includes(Number(e?.errno));
  return /^SQLITE_BUSY|^SQLITE_LOCKED/.test(String(e?.code ?? ''));
}
