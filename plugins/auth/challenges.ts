import { constantTimeEqual, hashToken, randomToken } from '../../kernel/api.js';
import type { AuthDb } from './tables.js';

export const CHALLENGE_TTL_MS = 5 * 60_000;

/** The token between a right password and the second factor; only its hash is stored. */
export async function issueChallenge(db: AuthDb, userId: string, now: number): Promise<string> {
  const token = randomToken(32);
  // Spent and stale challenges have no further use; clear the user's on the way.
  await db
    .deleteFrom('auth_challenges')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('used_at', 'is not', null)]))
    .execute();
  await db
    .insertInto('auth_challenges')
    .values({ token_hash: hashToken(token), user_id: userId, created_at: now, expires_at: now + CHALLENGE_TTL_MS, used_at: null })
    .execute();
  return token;
}

/** Whose challenge this is; null when it is unknown, already used or expired. */
export async function findChallenge(db: AuthDb, token: string, now: number): Promise<{ userId: string } | null> {
  const hash = hashToken(token);
  const row = await db
    .selectFrom('auth_challenges')
    .select(['token_hash', 'user_id', 'expires_at', 'used_at'])
    .where('token_hash', '=', hash)
    .executeTakeFirst();
  if (!row || !constantTimeEqual(row.token_hash, hash)) return null;
  if (row.used_at !== null || Number(row.expires_at) <= now) return null;
  return { userId: row.user_id };
}

/** Marks the challenge used; the conditional update lets two simultaneous uses succeed at most once. */
export async function consumeChallenge(db: AuthDb, token: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('auth_challenges')
    .set({ used_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function dropChallengesOf(db: AuthDb, userId: string): Promise<void> {
  await db.deleteFrom('auth_challenges').where('user_id', '=', userId).execute();
}
