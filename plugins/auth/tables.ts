import type { Kysely } from 'kysely';
import type { KernelTables, MetaDb } from '../../kernel/api.js';

/** The tables `migrations.ts` creates. */
// A type alias, not an interface: kysely's withTables wants an indexable record type.
export type AuthTables = {
  auth_challenges: { token_hash: string; user_id: string; created_at: number; expires_at: number; used_at: number | null };
  auth_totp: { user_id: string; secret_sealed: string | null; pending_sealed: string | null; last_step: number | null; updated_at: number };
  auth_recovery_codes: { id: string; user_id: string; code_hash: string; created_at: number; used_at: number | null };
};

export type AuthDb = Kysely<KernelTables & AuthTables>;

export function authDb(db: MetaDb): AuthDb {
  return db.withTables<AuthTables>() as AuthDb;
}

export type UserRow = KernelTables['users'];
