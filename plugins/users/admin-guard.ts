import type { Transaction } from 'kysely';
import { AppError, type KernelTables, type MetaDb } from '../../kernel/api.js';

export type Trx = Transaction<KernelTables>;

async function activeAdminIds(trx: Trx): Promise<string[]> {
  const rows = await trx
    .selectFrom('users')
    .innerJoin('user_roles', 'user_roles.user_id', 'users.id')
    .select('users.id')
    .where('user_roles.role_id', '=', 'admin')
    .where('users.status', '=', 'active')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Runs `change` in a transaction and rolls it back with 409 CONFLICT when it would leave no
 * active admin. Every such change first writes the admin role's row, which takes that row's
 * lock (PostgreSQL, MySQL) or the write lock (SQLite) until commit: two concurrent demotions
 * run one after the other, and the second counts what the first left.
 */
export async function guardLastAdmin<T>(db: MetaDb, userId: string, change: (trx: Trx) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('roles')
      .set((eb) => ({ updated_at: eb.ref('updated_at') }))
      .where('id', '=', 'admin')
      .execute();
    const wasActiveAdmin = (await activeAdminIds(trx)).includes(userId);
    const out = await change(trx);
    if (wasActiveAdmin && (await activeAdminIds(trx)).length === 0) {
      throw new AppError('CONFLICT', {
        message: 'This is the last active admin: it cannot be deleted, suspended or lose the admin role. Make another user an admin first.',
        params: { reason: 'last-admin', userId },
      });
    }
    return out;
  });
}
