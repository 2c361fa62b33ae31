import { AppError } from '../../kernel/errors.js';
import type { Principal } from '../../kernel/identity/principal.js';
import type { Kernel } from '../../kernel/kernel-services.js';
import type { RolesService } from '../roles/manifest.js';
import type { UsersService } from './service.js';

export const users = (kernel: Kernel) => kernel.plugin<UsersService>('users');
export const roles = (kernel: Kernel) => kernel.plugin<RolesService>('roles');

/** Unknown role ids are a bad value in the body: 400 naming each one's path. */
export async function assertKnownRoles(kernel: Kernel, roleIds: readonly string[], path = 'body.roleIds'): Promise<void> {
  const unknown = new Set(await roles(kernel).unknownRoleIds(roleIds));
  if (unknown.size === 0) return;
  const issues = roleIds.flatMap((id, i) => (unknown.has(id) ? [{ path: `${path}.${i}`, code: 'unknown_role', message: `No role ${id}.` }] : []));
  throw new AppError('VALIDATION_FAILED', { issues });
}

/** Who the invitation says it is from: the signed-in user's name; a key has no name to give. */
export async function inviterName(kernel: Kernel, principal: Principal): Promise<string | null> {
  if (!principal.userId) return null;
  const row = await kernel.db.selectFrom('users').select('name').where('id', '=', principal.userId).executeTakeFirst();
  return row?.name ?? null;
}
