import { randomBytes } from 'node:crypto';
import { constantTimeEqual, hashToken, newId } from '../../kernel/api.js';
import type { AuthDb } from './tables.js';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32: no i, l, o, u to misread
const CODE_CHARS = 16; // 80 bits, so a stored SHA-256 cannot be reversed by trying them all

function randomCode(): string {
  let acc = 0n;
  for (const b of randomBytes((CODE_CHARS * 5) / 8)) acc = (acc << 8n) | BigInt(b);
  let out = '';
  for (let i = 0; i < CODE_CHARS; i++) {
    out = ALPHABET[Number(acc & 31n)]! + out;
    acc >>= 5n;
  }
  return out;
}

/** `abcd-efgh-jkmn-pqrs`: 19 characters, inside the 20 a code field takes. */
function formatCode(code: string): string {
  return code.match(/.{4}/g)!.join('-');
}

/** What the user typed, without separators or case; null when it cannot be a recovery code. */
export function normaliseRecoveryCode(input: string): string | null {
  const bare = input.toLowerCase().replace(/[\s-]/g, '');
  if (bare.length !== CODE_CHARS || [...bare].some((c) => !ALPHABET.includes(c))) return null;
  return bare;
}

/** Replaces the user's codes with a fresh set; answers them once, stores only their hashes. */
export async function replaceRecoveryCodes(db: AuthDb, userId: string, now: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, randomCode);
  await db.deleteFrom('auth_recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('auth_recovery_codes')
    .values(codes.map((code) => ({ id: newId(now), user_id: userId, code_hash: hashToken(code), created_at: now, used_at: null })))
    .execute();
  return codes.map(formatCode);
}

/** Spends an unused code of the user; each code works once, also under two simultaneous uses. */
export async function useRecoveryCode(db: AuthDb, userId: string, input: string, now: number): Promise<boolean> {
  const code = normaliseRecoveryCode(input);
  if (!code) return false;
  const hash = hashToken(code);
  const row = await db
    .selectFrom('auth_recovery_codes')
    .select(['id', 'code_hash'])
    .where('user_id', '=', userId)
    .where('code_hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (!row || !constantTimeEqual(row.code_hash, hash)) return false;
  const res = await db.updateTable('auth_recovery_codes').set({ used_at: now }).where('id', '=', row.id).where('used_at', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function dropRecoveryCodes(db: AuthDb, userId: string): Promise<void> {
  await db.deleteFrom('auth_recovery_codes').where('user_id', '=', userId).execute();
}
