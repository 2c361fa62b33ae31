import { z } from 'zod';
import { AppError, dataOf, encodeCursor, linkBase, noBody, okSchema, reply, route, toUser, userSchema } from '../../kernel/api.js';
import { sendInvitation } from './invitation.js';
import { createUserBody, invitedUserBody, listUsersQuery, patchUserBody, userBody, userIdParams, userWithRolesBody } from './schemas.js';
import { assertKnownRoles, inviterName, roles, users } from './context.js';

export const userRoutes = [
  route({
    method: 'GET',
    url: '/users',
    summary: 'Users in creation order, filtered by status, role or a search in e-mail and name',
    permission: 'users.read',
    schema: {
      query: listUsersQuery,
      response: { 200: dataOf(z.strictObject({ users: z.array(userSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query }) => {
      const page = await users(kernel).list({ limit: query.limit, afterId: query.cursor?.id, status: query.status, q: query.q, roleId: query.roleId });
      return { data: { users: page.users, nextCursor: page.nextId ? encodeCursor({ id: page.nextId }) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/users',
    summary: 'Create a user: active with a password, else invited by e-mail',
    description:
      'Without a password the user is invited: a set-password link valid 7 days is e-mailed when e-mail is set up; while it is not, the answer carries the link as `inviteLink` for the inviter to pass on. ' +
      "The link points at SVC_BASE_URL; without it, at the instance's own loopback/listen address, else 409 BASE_URL_REQUIRED and no user is created. " +
      'An e-mail address already in use answers 409 CONFLICT; an unknown role id 400; a role reaching beyond the caller’s own permissions 403.',
    permission: 'users.write',
    schema: { body: createUserBody, response: { 201: invitedUserBody } },
    handler: async ({ kernel, body, principal, request, audit }) => {
      const roleIds = [...new Set(body.roleIds ?? [])];
      await assertKnownRoles(kernel, body.roleIds ?? []);
      await roles(kernel).assertCovers(principal!, roleIds);
      const base = body.password === undefined ? linkBase(request, kernel.config) : null;
      const user = await users(kernel).create({ ...body, roleIds });
      audit({ action: 'users.create', target: { type: 'user', id: user.id }, diff: { email: user.email, name: user.name, status: user.status, roleIds } });
      const invitation = user.status === 'invited' && base !== null ? await sendInvitation(kernel, base, user, await inviterName(kernel, principal!)) : null;
      return reply(201, { data: { user, ...(invitation && !invitation.mailed ? { inviteLink: invitation.link } : {}) } });
    },
  }),
  route({
    method: 'GET',
    url: '/users/:id',
    summary: 'One user, with the ids of its roles',
    permission: 'users.read',
    schema: { params: userIdParams, response: { 200: userWithRolesBody } },
    handler: async ({ kernel, params }) => {
      const row = await users(kernel).row(params.id);
      return { data: { user: toUser(row), roleIds: await users(kernel).roleIdsOf(row.id) } };
    },
  }),
  route({
    method: 'PATCH',
    url: '/users/:id',
    summary: "Change a user's name, e-mail or status (active or suspended)",
    description:
      'Suspending ends the user’s sessions at once and stops the API keys they created until they are active again. ' +
      'A new e-mail address withdraws unused set-password links; an invited user is sent a new invitation there. ' +
      'The last active admin cannot be suspended, and an invited user cannot change status here: 409 CONFLICT.',
    permission: 'users.write',
    schema: { params: userIdParams, body: patchUserBody, response: { 200: userBody } },
    handler: async ({ kernel, params, body, principal, request, audit }) => {
      const service = users(kernel);
      const current = await service.row(params.id);
      await roles(kernel).assertCovers(principal!, await service.roleIdsOf(current.id));
      const movesInvitation = current.status === 'invited' && body.email !== undefined && body.email.trim().toLowerCase() !== current.email;
      const base = movesInvitation ? linkBase(request, kernel.config) : null;
      const { before, after } = await service.update(params.id, body);
      // The earlier link was withdrawn with the old address; the invitation follows the new one.
      if (after.status === 'invited' && after.email !== before.email && base !== null)
        await sendInvitation(kernel, base, after, await inviterName(kernel, principal!));
      const changed = (['name', 'email', 'status'] as const).filter((k) => before[k] !== after[k]);
      if (changed.length) {
        audit({
          action: 'users.update',
          target: { type: 'user', id: after.id },
          diff: { before: Object.fromEntries(changed.map((k) => [k, before[k]])), after: Object.fromEntries(changed.map((k) => [k, after[k]])) },
        });
      }
      return { data: { user: after } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/users/:id',
    summary: 'Delete a user, their sessions, and the API keys they created',
    description: 'The last active admin cannot be deleted: 409 CONFLICT.',
    permission: 'users.write',
    schema: { params: userIdParams, response: { 200: okSchema } },
    handler: async ({ kernel, params, principal, audit }) => {
      const service = users(kernel);
      await roles(kernel).assertCovers(principal!, await service.roleIdsOf((await service.row(params.id)).id));
      const user = await service.remove(params.id);
      audit({ action: 'users.delete', target: { type: 'user', id: user.id }, diff: { email: user.email, name: user.name, status: user.status } });
      return { data: { ok: true as const } };
    },
  }),
  route({
    method: 'POST',
    url: '/users/:id/invite/resend',
    summary: 'Send the invitation again with a new link (earlier links stop working)',
    description:
      'Only for a user whose status is invited; otherwise 409 CONFLICT. 409 BASE_URL_REQUIRED when the link would have no trusted address (see POST /users). ' +
      'While e-mail is not set up the new link is in the answer as `inviteLink`.',
    permission: 'users.write',
    schema: { params: userIdParams, body: noBody, response: { 200: invitedUserBody } },
    handler: async ({ kernel, params, principal, request, audit }) => {
      const service = users(kernel);
      const row = await service.row(params.id);
      if (row.status !== 'invited') {
        throw new AppError('CONFLICT', { message: `The user is ${row.status}, not invited.`, params: { reason: 'not-invited', status: row.status } });
      }
      await roles(kernel).assertCovers(principal!, await service.roleIdsOf(row.id));
      const base = linkBase(request, kernel.config);
      const user = toUser(row);
      const invitation = await sendInvitation(kernel, base, user, await inviterName(kernel, principal!));
      audit({ action: 'users.invite.resend', target: { type: 'user', id: user.id }, diff: { email: user.email } });
      return { data: { user, ...(invitation.mailed ? {} : { inviteLink: invitation.link }) } };
    },
  }),
];
