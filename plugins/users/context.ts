import { AppError, type Kernel, type Principal } from '../../kernel/api.js';
import { usersServiceRef } from './service.js';
import { rolesRef } from '../roles/provides.js';

export const users = (kernel: Kernel) => kernel.plugin(usersServiceRef);
export const roles = (kernel: Kernel) => kernel.plugin(rolesRef);

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
