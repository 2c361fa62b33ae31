import { AppError, hashPassword, type MetaDb, newId, toUser, type User } from '../../kernel/api.js';

const SETUP_DONE = 'setup.completed';

export async function isSetupOpen(db: MetaDb): Promise<boolean> {
  const row = await db.selectFrom('kernel_state').select('key').where('key', '=', SETUP_DONE).executeTakeFirst();
  return !row;
}

/**
 * The marker row and the user commit together; the marker's primary key makes a second
 * (or simultaneous) setup fail on every dialect, so exactly one super admin is ever created.
 */
export async function createSuperAdmin(db: MetaDb, input: { email: string; password: string; name: string }, now: number): Promise<User> {
  if (!(await isSetupOpen(db))) throw new AppError('SETUP_CLOSED');
  const passwordHash = await hashPassword(input.password);
  const row = {
    id: newId(now),
    email: input.email.trim().toLowerCase(),
    name: input.name,
    status: 'active' as const,
    password_hash: passwordHash,
    totp_enabled: 0,
    last_login_at: now,
    created_at: now,
    updated_at: now,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('kernel_state').values({ key: SETUP_DONE, value: row.id, updated_at: now }).execute();
      await trx.insertInto('users').values(row).execute();
      await trx.insertInto('user_roles').values({ user_id: row.id, role_id: 'admin' }).execute();
    });
  } catch (err) {
    if (!(await isSetupOpen(db))) throw new AppError('SETUP_CLOSED');
    throw err;
  }
  return toUser(row);
}
