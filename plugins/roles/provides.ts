import { defineServiceRef, type Principal } from '../../kernel/api.js';

/** What the roles plugin provides to the plugins that hand out roles (users, api-keys), and their names to search. */
export interface RolesProvides {
  /** The ids among `ids` that name no role. */
  unknownRoleIds(ids: readonly string[]): Promise<string[]>;
  /**
   * Refuses (403 FORBIDDEN) to let `caller` hand out, or act on the holder of, roles reaching
   * further than the caller's own permissions.
   */
  assertCovers(caller: Principal, roleIds: readonly string[]): Promise<void>;
  /** Every role's id, name and description, built-in first (search's index; a few hundred at most). */
  names(): Promise<RoleName[]>;
  /** Changes when a role was added, renamed or removed: other replicas' caches poll it (as add-ons' `stamp`). */
  stamp(): Promise<string>;
}

export interface RoleName {
  id: string;
  name: string;
  description: string | null;
}

/** `kernel.plugin(rolesRef)` from a plugin that requires 'roles'. */
export const rolesRef = defineServiceRef<RolesProvides>('roles');
