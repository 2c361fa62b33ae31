import type { MetaDb } from '../../kernel/api.js';
import type { SessionEntry } from './schemas.js';

/** The user's live sessions, newest first; `current` marks the one asking. */
export async function listSessions(db: MetaDb, userId: string, currentSessionId: string | null, now: number): Promise<SessionEntry[]> {
  const rows = await db
    .selectFrom('sessions')
    .select(['id', 'ip', 'user_agent', 'created_at', 'last_seen_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('expires_at', '>', now)
    .where('absolute_expires_at', '>', now)
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    ip: r.ip,
    userAgent: r.user_agent,
    createdAt: Number(r.created_at),
    lastSeenAt: Number(r.last_seen_at),
    expiresAt: Number(r.expires_at),
    current: r.id === currentSessionId,
  }));
}

/** Ends one of the user's own sessions; false when there is none by that id for this user. */
export async function endOwnSession(db: MetaDb, userId: string, sessionId: string): Promise<boolean> {
  const res = await db.deleteFrom('sessions').where('id', '=', sessionId).where('user_id', '=', userId).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}
