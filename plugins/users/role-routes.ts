import { z } from 'zod';
import { AppError, type AuditEntryInput, type Kernel, type Principal, route, toUser } from '../../kernel/api.js';
import { assertKnownRoles, roles, users } from './context.js';
import { roleIdsBody, userIdParams, userWithRolesBody } from './schemas.js';

/**
 * Every assignment change: the caller must cover both what the user holds now and what it
 * will hold (no acting on, or creating, someone more powerful than oneself).
 */
async function changeRoles(
  ctx: { kernel: Kernel; principal: Principal | null; audit(entry: AuditEntryInput): void },
  userId: string,
  action: string,
  next: (current: string[]) => string[],
) {
  const service = users(ctx.kernel);
  const current = await service.roleIdsOf((await service.row(userId)).id);
  await roles(ctx.kernel).assertCovers(ctx.principal!, [...new Set([...current, ...next(current)])]);
  const { before, after } = await service.setRoles(userId, next);
  ctx.audit({ action, target: { type: 'user', id: userId }, diff: { before, after } });
  return { data: { user: toUser(await service.row(userId)), roleIds: after } };
}

export const userRoleRoutes = [
  route({
    method: 'POST',
    url: '/users/:id/roles',
    summary: 'Give a user more roles (those already held stay)',
    description: 'Unknown role ids answer 400; a role reaching beyond the caller’s own permissions 403.',
    permission: 'users.write',
    schema: { params: userIdParams, body: roleIdsBody, response: { 200: userWithRolesBody } },
    handler: async (ctx) => {
      await assertKnownRoles(ctx.kernel, ctx.body.roleIds);
      return changeRoles(ctx, ctx.params.id, 'users.roles.add', (current) => [...current, ...ctx.body.roleIds]);
    },
  }),
  route({
    method: 'PUT',
    url: '/users/:id/roles',
    summary: "Replace a user's roles",
    description: 'Taking the admin role from the last active admin answers 409 CONFLICT.',
    permission: 'users.write',
    schema: { params: userIdParams, body: roleIdsBody, response: { 200: userWithRolesBody } },
    handler: async (ctx) => {
      await assertKnownRoles(ctx.kernel, ctx.body.roleIds);
      return changeRoles(ctx, ctx.params.id, 'users.roles.set', () => ctx.body.roleIds);
    },
  }),
  route({
    method: 'DELETE',
    url: '/users/:id/roles/:roleId',
    summary: 'Take one role from a user',
    description: 'A role the user does not hold answers 404; the last active admin keeps the admin role (409 CONFLICT).',
    permission: 'users.write',
    schema: { params: z.object({ id: userIdParams.shape.id, roleId: z.string().min(1).max(64) }), response: { 200: userWithRolesBody } },
    handler: async (ctx) => {
      const { id, roleId } = ctx.params;
      const held = await users(ctx.kernel).roleIdsOf((await users(ctx.kernel).row(id)).id);
      if (!held.includes(roleId)) throw new AppError('NOT_FOUND', { message: 'The user does not hold this role.', params: { userId: id, roleId } });
      return changeRoles(ctx, id, 'users.roles.remove', (current) => current.filter((r) => r !== roleId));
    },
  }),
];
