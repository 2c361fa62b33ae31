import { sql } from 'kysely';
import { defineServiceRef, AppError, hashPassword, type Kernel, type KernelTables, newId, toUser, type User } from '../../kernel/api.js';
import { guardLastAdmin, type Trx } from './admin-guard.js';
import type { UserName } from './provides.js';

type UserRow = KernelTables['users'];
export type UserStatus = UserRow['status'];

export interface ListFilter {
  limit: number;
  afterId?: string | undefined;
  status?: UserStatus | undefined;
  q?: string | undefined;
  roleId?: string | undefined;
}

export interface UserPatch {
  name?: string | undefined;
  email?: string | undefined;
  status?: 'active' | 'suspended' | undefined;
}

/** `%` and `_` in a search are literal: escaped with `!` (not `\`, which MySQL treats specially). */
function likePattern(q: string): string {
  return `%${q.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

const normaliseEmail = (email: string) => email.trim().toLowerCase();

export class UsersService {
  constructor(private readonly kernel: Kernel) {}

  private get db() {
    return this.kernel.db;
  }

  async list(f: ListFilter): Promise<{ users: User[]; nextId: string | null }> {
    let q = this.db
      .selectFrom('users')
      .selectAll()
      .orderBy('id')
      .limit(f.limit + 1);
    if (f.afterId) q = q.where('id', '>', f.afterId);
    if (f.status) q = q.where('status', '=', f.status);
    if (f.q) {
      const p = likePattern(f.q);
      q = q.where((eb) => eb.or([sql<boolean>`lower(${eb.ref('email')}) like ${p} escape '!'`, sql<boolean>`lower(${eb.ref('name')}) like ${p} escape '!'`]));
    }
    if (f.roleId) {
      const roleId = f.roleId;
      q = q.where((eb) =>
        eb.exists(
          eb.selectFrom('user_roles').select('user_roles.user_id').whereRef('user_roles.user_id', '=', 'users.id').where('user_roles.role_id', '=', roleId),
        ),
      );
    }
    const rows = await q.execute();
    const page = rows.slice(0, f.limit);
    return { users: page.map(toUser), nextId: rows.length > f.limit ? page[page.length - 1]!.id : null };
  }

  /** UsersProvides.names: four columns of every user, no roles. */
  async names(): Promise<UserName[]> {
    return this.db.selectFrom('users').select(['id', 'name', 'email', 'status']).orderBy('id').execute();
  }

  /** UsersProvides.stamp: how many users, and the latest change. */
  async stamp(): Promise<string> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('updated_at').as('at')])
      .executeTakeFirst();
    return `${Number(row?.n ?? 0)}:${Number(row?.at ?? 0)}`;
  }

  async row(id: string): Promise<UserRow> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', { params: { userId: id } });
    return row;
  }

  async roleIdsOf(userId: string, db: Trx | Kernel['db'] = this.db): Promise<string[]> {
    const rows = await db.selectFrom('user_roles').select('role_id').where('user_id', '=', userId).orderBy('role_id').execute();
    return rows.map((r) => r.role_id);
  }

  private async assertEmailFree(email: string, exceptId?: string): Promise<void> {
    let q = this.db.selectFrom('users').select('id').where('email', '=', email);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst())
      throw new AppError('CONFLICT', { message: 'Another user already has this e-mail address.', params: { reason: 'email-taken', field: 'email' } });
  }

  /** With a password the user is active at once; without, invited until they set one. */
  async create(input: { email: string; name: string; password?: string | undefined; roleIds: string[] }): Promise<User> {
    const email = normaliseEmail(input.email);
    await this.assertEmailFree(email);
    const now = this.kernel.now();
    const row: UserRow = {
      id: newId(now),
      email,
      name: input.name,
      status: input.password === undefined ? 'invited' : 'active',
      password_hash: input.password === undefined ? null : await hashPassword(input.password),
      totp_enabled: 0,
      last_login_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(row).execute();
        const roleIds = [...new Set(input.roleIds)];
        if (roleIds.length)
          await trx
            .insertInto('user_roles')
            .values(roleIds.map((role_id) => ({ user_id: row.id, role_id })))
            .execute();
      });
    } catch (err) {
      await this.assertEmailFree(email); // lost a race for the address: 409, not 500
      throw err;
    }
    return toUser(row);
  }

  async update(id: string, patch: UserPatch): Promise<{ before: User; after: User }> {
    const current = await this.row(id);
    const changes: Partial<Pick<UserRow, 'name' | 'email' | 'status'>> = {};
    if (patch.name !== undefined && patch.name !== current.name) changes.name = patch.name;
    if (patch.email !== undefined && normaliseEmail(patch.email) !== current.email) changes.email = normaliseEmail(patch.email);
    if (patch.status !== undefined && patch.status !== current.status) {
      if (current.status === 'invited') {
        throw new AppError('CONFLICT', {
          message: 'An invited user becomes active by accepting the invitation; delete the user to withdraw it.',
          params: { reason: 'invited', field: 'status' },
        });
      }
      changes.status = patch.status;
    }
    if (Object.keys(changes).length === 0) return { before: toUser(current), after: toUser(current) };
    if (changes.email) await this.assertEmailFree(changes.email, id);
    const write = async (trx: Trx) => {
      await trx
        .updateTable('users')
        .set({ ...changes, updated_at: this.kernel.now() })
        .where('id', '=', id)
        .execute();
      // Links already mailed went to the old address; whoever reads it there must not set the password.
      if (changes.email) await trx.deleteFrom('password_tokens').where('user_id', '=', id).where('used_at', 'is', null).execute();
    };
    try {
      if (changes.status === 'suspended') await guardLastAdmin(this.db, id, write);
      else await this.db.transaction().execute(write);
    } catch (err) {
      if (changes.email) await this.assertEmailFree(changes.email, id);
      throw err;
    }
    // The kernel already refuses a suspended user's sessions; ending them also frees the rows.
    if (changes.status === 'suspended') await this.kernel.identity.endSessionsOf(id);
    return { before: toUser(current), after: toUser(await this.row(id)) };
  }

  /** Sessions, role assignments and tokens go with the user (foreign keys); keys they made are revoked. */
  async remove(id: string): Promise<User> {
    const current = await this.row(id);
    await guardLastAdmin(this.db, id, async (trx) => {
      await trx.updateTable('api_keys').set({ revoked_at: this.kernel.now() }).where('created_by', '=', id).where('revoked_at', 'is', null).execute();
      await trx.deleteFrom('users').where('id', '=', id).execute();
    });
    return toUser(current);
  }

  /** Applies a new set of role ids; the last-admin guard decides whether it may stand. */
  async setRoles(userId: string, next: (current: string[]) => string[]): Promise<{ before: string[]; after: string[] }> {
    await this.row(userId);
    const result = await guardLastAdmin(this.db, userId, async (trx) => {
      const before = await this.roleIdsOf(userId, trx);
      const after = [...new Set(next(before))].sort();
      const removed = before.filter((r) => !after.includes(r));
      const added = after.filter((r) => !before.includes(r));
      if (removed.length) await trx.deleteFrom('user_roles').where('user_id', '=', userId).where('role_id', 'in', removed).execute();
      if (added.length)
        await trx
          .insertInto('user_roles')
          .values(added.map((role_id) => ({ user_id: userId, role_id })))
          .execute();
      if (removed.length || added.length) await trx.updateTable('users').set({ updated_at: this.kernel.now() }).where('id', '=', userId).execute();
      return { before, after };
    });
    if (result.before.join() !== result.after.join()) {
      // The change has committed; a notification that cannot be stored must not turn it into an error.
      await this.notifyRolesChanged(userId, result.after).catch((err: Error) =>
        this.kernel.log.warn({ userId, err: { message: err.message } }, 'role change not notified'),
      );
    }
    return result;
  }

  private async notifyRolesChanged(userId: string, roleIds: string[]): Promise<void> {
    const names = roleIds.length
      ? (await this.db.selectFrom('roles').select('name').where('id', 'in', roleIds).orderBy('name').execute()).map((r) => r.name)
      : [];
    await this.kernel.notifications.notify(userId, {
      kind: 'users.roles-changed',
      title: 'Your roles changed',
      body: names.length ? `Your roles are now: ${names.join(', ')}.` : 'You no longer hold any role.',
    });
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const usersServiceRef = defineServiceRef<UsersService>('users');
