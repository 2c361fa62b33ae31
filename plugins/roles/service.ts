import {
  defineServiceRef,
  AppError,
  BUILTIN_ROLES,
  type BuiltinRole,
  type Grant,
  type GrantScope,
  type Kernel,
  type KernelTables,
  newId,
  PermissionSet,
  type Principal,
} from '../../kernel/api.js';
import { firstUncovered } from './escalation.js';
import type { RoleName } from './provides.js';
import type { GrantView, Role } from './schemas.js';

type RoleRow = KernelTables['roles'];

export function toRole(row: RoleRow): Role {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    builtin: Boolean(row.builtin),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function isBuiltinRole(id: string): id is BuiltinRole {
  return (BUILTIN_ROLES as readonly string[]).includes(id);
}

const toGrantView = (g: Grant): GrantView => ({ permission: g.permission, scope: g.scope ?? null });

/**
 * Roles and their grants. Also what users and api-keys use (through `rolesRef` in provides.ts)
 * to check role ids and to refuse handing out more than the caller holds.
 */
export class RolesService {
  constructor(private readonly kernel: Kernel) {}

  private get db() {
    return this.kernel.db;
  }

  async list(limit: number, after: { builtin: number; id: string } | undefined): Promise<{ roles: Role[]; next: { builtin: number; id: string } | null }> {
    // Built-in roles first, then custom roles in creation order (their ids are time-ordered).
    let q = this.db
      .selectFrom('roles')
      .selectAll()
      .orderBy('builtin', 'desc')
      .orderBy('id', 'asc')
      .limit(limit + 1);
    if (after) q = q.where((eb) => eb.or([eb('builtin', '<', after.builtin), eb.and([eb('builtin', '=', after.builtin), eb('id', '>', after.id)])]));
    const rows = await q.execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { roles: page.map(toRole), next: rows.length > limit && last ? { builtin: Number(last.builtin), id: last.id } : null };
  }

  async names(): Promise<RoleName[]> {
    return this.db.selectFrom('roles').select(['id', 'name', 'description']).orderBy('builtin', 'desc').orderBy('id', 'asc').execute();
  }

  async stamp(): Promise<string> {
    const row = await this.db
      .selectFrom('roles')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('updated_at').as('at')])
      .executeTakeFirst();
    return `${Number(row?.n ?? 0)}:${Number(row?.at ?? 0)}`;
  }

  async find(id: string): Promise<Role> {
    const row = await this.db.selectFrom('roles').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', { params: { roleId: id } });
    return toRole(row);
  }

  private async assertNameFree(name: string, exceptId?: string): Promise<void> {
    let q = this.db
      .selectFrom('roles')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst())
      throw new AppError('CONFLICT', { message: `A role named "${name}" already exists.`, params: { reason: 'name-taken', name } });
  }

  async create(input: { name: string; description?: string | null | undefined }): Promise<Role> {
    await this.assertNameFree(input.name);
    const now = this.kernel.now();
    const row: RoleRow = { id: newId(now), name: input.name, description: input.description ?? null, builtin: 0, created_at: now, updated_at: now };
    try {
      await this.db.insertInto('roles').values(row).execute();
    } catch (err) {
      await this.assertNameFree(input.name); // lost a race for the name: answer 409, not 500
      throw err;
    }
    return toRole(row);
  }

  private refuseBuiltin(role: Role, what: string): void {
    if (role.builtin) {
      throw new AppError('CONFLICT', { message: `The built-in role ${role.id} cannot be ${what}.`, params: { reason: 'builtin-role', roleId: role.id } });
    }
  }

  async update(id: string, input: { name?: string | undefined; description?: string | null | undefined }): Promise<{ before: Role; after: Role }> {
    const before = await this.find(id);
    this.refuseBuiltin(before, 'changed');
    if (input.name !== undefined) await this.assertNameFree(input.name, id);
    const patch = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      updated_at: this.kernel.now(),
    };
    try {
      await this.db.updateTable('roles').set(patch).where('id', '=', id).execute();
    } catch (err) {
      if (input.name !== undefined) await this.assertNameFree(input.name, id);
      throw err;
    }
    return { before, after: await this.find(id) };
  }

  async remove(id: string): Promise<Role> {
    const role = await this.find(id);
    this.refuseBuiltin(role, 'deleted');
    const inUse = async () => {
      const users = await this.db
        .selectFrom('user_roles')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('role_id', '=', id)
        .executeTakeFirstOrThrow();
      const keys = await this.db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('role_id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow();
      const counts = { users: Number(users.n), apiKeys: Number(keys.n) };
      if (counts.users > 0 || counts.apiKeys > 0) {
        throw new AppError('CONFLICT', {
          message: `The role is still held by ${counts.users} user(s) and ${counts.apiKeys} API key(s); reassign them first.`,
          params: { reason: 'role-in-use', roleId: id, ...counts },
        });
      }
    };
    await inUse();
    try {
      await this.db.transaction().execute(async (trx) => {
        // Revoked keys keep a reference to their role; they are dead, and the audit trail keeps their story.
        await trx.deleteFrom('api_keys').where('role_id', '=', id).where('revoked_at', 'is not', null).execute();
        await trx.deleteFrom('roles').where('id', '=', id).execute();
      });
    } catch (err) {
      await inUse(); // a key made for it meanwhile: 409 rather than a foreign-key 500
      throw err;
    }
    return role;
  }

  /** A built-in role's grants come from the catalog (K3); a custom role's from what was stored. */
  async grantsOf(id: string): Promise<{ role: Role; grants: GrantView[] }> {
    const role = await this.find(id);
    if (isBuiltinRole(role.id)) return { role, grants: this.kernel.permissions.builtinGrants(role.id).map(toGrantView) };
    const rows = await this.db
      .selectFrom('role_grants')
      .select(['permission', 'scope'])
      .where('role_id', '=', id)
      .orderBy('permission')
      .orderBy('id')
      .execute();
    return { role, grants: rows.map((r) => toGrantView({ permission: r.permission, scope: r.scope ? (JSON.parse(r.scope) as GrantScope) : null })) };
  }

  /** Replaces the grants of a custom role in one transaction. Validation happens in the route. */
  async setGrants(id: string, grants: Grant[]): Promise<{ before: GrantView[]; after: GrantView[] }> {
    const { role, grants: before } = await this.grantsOf(id);
    if (role.builtin) {
      throw new AppError('CONFLICT', {
        message: `The built-in role ${role.id} holds its permissions by declaration; create a custom role to choose grants.`,
        params: { reason: 'builtin-role', roleId: role.id },
      });
    }
    const unique = new Map<string, Grant>();
    for (const g of grants) unique.set(JSON.stringify([g.permission, g.scope ?? null]), g);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('role_grants').where('role_id', '=', id).execute();
      const rows = [...unique.values()].map((g) => ({ id: newId(), role_id: id, permission: g.permission, scope: g.scope ? JSON.stringify(g.scope) : null }));
      if (rows.length) await trx.insertInto('role_grants').values(rows).execute();
      await trx.updateTable('roles').set({ updated_at: this.kernel.now() }).where('id', '=', id).execute();
    });
    return { before, after: (await this.grantsOf(id)).grants };
  }

  /** Ids among `ids` that name no role. */
  async unknownRoleIds(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const found = new Set(
      (
        await this.db
          .selectFrom('roles')
          .select('id')
          .where('id', 'in', [...ids])
          .execute()
      ).map((r) => r.id),
    );
    return ids.filter((id) => !found.has(id));
  }

  /**
   * Refuses (403 FORBIDDEN) to let `caller` hand out, or act on the holder of, roles reaching
   * further than the caller's own permissions: no one escalates through users, roles or keys.
   */
  async assertCovers(caller: Principal, roleIds: readonly string[]): Promise<void> {
    if (caller.permissions.all || roleIds.length === 0) return;
    const target = await this.kernel.identity.permissionsOfRoles([...roleIds]);
    this.assertCoversSet(caller, target, { roleIds: [...roleIds] });
  }

  /**
   * Refuses (403 FORBIDDEN) to take grants away from a role when one of the users holding it
   * holds, through all their roles, something the caller does not: K15 forbids acting on a
   * user who reaches further, and stripping their role is acting on them. Only adding grants
   * (nothing removed) is not checked here: that is `assertCoversGrants`.
   */
  async assertMayStrip(caller: Principal, roleId: string, grants: Grant[]): Promise<void> {
    if (caller.permissions.all) return;
    const key = (g: { permission: string; scope?: GrantScope | null }) => JSON.stringify([g.permission, g.scope ?? null]);
    const kept = new Set(grants.map(key));
    const { role, grants: before } = await this.grantsOf(roleId);
    if (role.builtin) return; // refused by setGrants with 409: built-in grants are by declaration
    if (before.every((g) => kept.has(key(g)))) return;
    const rows = await this.db
      .selectFrom('user_roles')
      .select(['user_id', 'role_id'])
      .where('user_id', 'in', (eb) => eb.selectFrom('user_roles').select('user_id').where('role_id', '=', roleId))
      .execute();
    const rolesByUser = new Map<string, string[]>();
    for (const r of rows) rolesByUser.set(r.user_id, [...(rolesByUser.get(r.user_id) ?? []), r.role_id]);
    // Holders share few combinations of roles: each combination is read once.
    const combos = new Set([...rolesByUser.values()].map((ids) => JSON.stringify([...ids].sort())));
    for (const combo of combos) {
      const held = await this.kernel.identity.permissionsOfRoles(JSON.parse(combo) as string[]);
      const missing = firstUncovered(
        caller.permissions,
        held,
        this.kernel.permissions.list().map((p) => p.name),
      );
      if (missing !== null) {
        throw new AppError('FORBIDDEN', {
          message: `Someone holding this role holds ${missing}, which you do not; you cannot take grants from their role.`,
          params: { permission: missing, reason: 'escalation', roleId },
        });
      }
    }
  }

  assertCoversGrants(caller: Principal, grants: Grant[]): void {
    this.assertCoversSet(caller, new PermissionSet(false, grants), {});
  }

  private assertCoversSet(caller: Principal, target: PermissionSet, params: Record<string, unknown>): void {
    const missing = firstUncovered(
      caller.permissions,
      target,
      this.kernel.permissions.list().map((p) => p.name),
    );
    if (missing !== null) {
      throw new AppError('FORBIDDEN', {
        message: `You cannot hand out ${missing}, which you do not hold yourself.`,
        params: { permission: missing, reason: 'escalation', ...params },
      });
    }
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const rolesServiceRef = defineServiceRef<RolesService>('roles');
