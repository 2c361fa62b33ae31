import { sql } from 'kysely';
import { type ActorType, idFloor, type KernelTables, type MetaDb } from '../../kernel/api.js';
import type { AuditEntry, AuditFilters } from './schemas.js';

type Row = KernelTables['audit_log'];

/**
 * An entry's id and `at` come from the same clock a moment apart, so a time window is also
 * an id window (with slack for that moment): the primary key then bounds the scan, and the
 * exact test on `at` stays as a filter.
 */
const ID_CLOCK_SLACK_MS = 60_000;
const MAX_ID_TIME = 2 ** 50 - 1; // the 10 time characters of an id hold 50 bits

/** The smallest id minted at `ms`, or null outside what an id can encode. */
function idFloorWithin(ms: number): string | null {
  if (ms < 0 || ms > MAX_ID_TIME) return null;
  return idFloor(ms);
}

/** LIKE with '!' as the escape character, which needs no quoting on any of the three dialects. */
function prefixPattern(prefix: string): string {
  return prefix.replace(/[!%_]/g, (c) => `!${c}`) + '%';
}

export function toEntry(row: Row): AuditEntry {
  let diff: unknown = null;
  if (row.diff !== null) {
    try {
      diff = JSON.parse(row.diff);
    } catch {
      diff = row.diff;
    }
  }
  return {
    id: row.id,
    at: Number(row.at),
    actor: { type: row.actor_type as ActorType, id: row.actor_id },
    action: row.action,
    target: row.target_type === null ? null : { type: row.target_type, id: row.target_id },
    diff,
    ip: row.ip,
    userAgent: row.user_agent,
    requestId: row.request_id,
  };
}

/**
 * One query per page, newest first, keyset over the time-ordered id. The equality filters line
 * up with the (actor_id, id), (action, id) and (target_type, target_id, id) indexes, so each
 * is a range scan that already comes out in id order.
 */
export function entriesQuery(db: MetaDb, f: AuditFilters) {
  let q = db.selectFrom('audit_log').selectAll();
  if (f.actorId !== undefined) q = q.where('actor_id', '=', f.actorId);
  if (f.actorType !== undefined) q = q.where('actor_type', '=', f.actorType);
  if (f.action !== undefined) {
    q = f.action.endsWith('.') ? q.where(sql<boolean>`${sql.ref('action')} like ${prefixPattern(f.action)} escape '!'`) : q.where('action', '=', f.action);
  }
  if (f.targetType !== undefined) q = q.where('target_type', '=', f.targetType);
  if (f.targetId !== undefined) q = q.where('target_id', '=', f.targetId);
  if (f.from !== undefined) {
    q = q.where('at', '>=', f.from);
    const floor = idFloorWithin(f.from - ID_CLOCK_SLACK_MS);
    if (floor) q = q.where('id', '>=', floor);
  }
  if (f.to !== undefined) {
    q = q.where('at', '<', f.to);
    const ceiling = idFloorWithin(f.to + ID_CLOCK_SLACK_MS);
    if (ceiling) q = q.where('id', '<', ceiling);
  }
  if (f.cursor !== undefined) q = q.where('id', '<', f.cursor);
  // One row past the page says whether there is a next one.
  return q.orderBy('id', 'desc').limit(f.limit + 1);
}

export async function listEntries(db: MetaDb, f: AuditFilters): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
  const rows = await entriesQuery(db, f).execute();
  const page = rows.slice(0, f.limit);
  return { entries: page.map(toEntry), nextCursor: rows.length > f.limit ? page[page.length - 1]!.id : null };
}

export async function findEntry(db: MetaDb, id: string): Promise<AuditEntry | null> {
  const row = await db.selectFrom('audit_log').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toEntry(row) : null;
}
