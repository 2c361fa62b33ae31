import { z } from 'zod';
import { AppError, cursorField, dataOf, encodeCursor, type ErrorIssue, type Kernel, listQuery, okSchema, reply, route } from '../../kernel/api.js';
import { grantInputSchema, grantSchema, roleDescriptionField, roleIdParam, roleNameField, roleSchema } from './schemas.js';
import { rolesServiceRef } from './service.js';

const roles = (kernel: Kernel) => kernel.plugin(rolesServiceRef);
const idParams = z.object({ id: roleIdParam });
const roleBody = dataOf(z.strictObject({ role: roleSchema }));
const grantsBody = dataOf(z.strictObject({ roleId: z.string(), builtin: z.boolean(), grants: z.array(grantSchema) }));
const roleCursor = z.strictObject({ builtin: z.number().int().min(0).max(1), id: z.string().min(1).max(64) });

export const roleRoutes = [
  route({
    method: 'GET',
    url: '/roles',
    summary: 'Roles: the built-in ones first, then custom roles by creation',
    permission: 'roles.read',
    schema: {
      query: listQuery.extend({ cursor: cursorField(roleCursor) }),
      response: { 200: dataOf(z.strictObject({ roles: z.array(roleSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query }) => {
      const page = await roles(kernel).list(query.limit, query.cursor);
      return { data: { roles: page.roles, nextCursor: page.next ? encodeCursor(page.next) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/roles',
    summary: 'Create a custom role (it holds no permissions until PUT /roles/{id}/permissions)',
    description: 'A name already used by another role, in any letter case, answers 409 CONFLICT.',
    permission: 'roles.write',
    schema: {
      body: z.strictObject({ name: roleNameField, description: roleDescriptionField.optional() }),
      response: { 201: roleBody },
    },
    handler: async ({ kernel, body, audit }) => {
      const role = await roles(kernel).create(body);
      audit({ action: 'roles.create', target: { type: 'role', id: role.id }, diff: { name: role.name, description: role.description } });
      return reply(201, { data: { role } });
    },
  }),
  route({
    method: 'PATCH',
    url: '/roles/:id',
    summary: 'Rename or describe a custom role',
    description: 'Built-in roles (admin, editor, viewer) cannot be changed: 409 CONFLICT.',
    permission: 'roles.write',
    schema: {
      params: idParams,
      body: z.strictObject({ name: roleNameField.optional(), description: roleDescriptionField.optional() }),
      response: { 200: roleBody },
    },
    handler: async ({ kernel, params, body, audit }) => {
      const { before, after } = await roles(kernel).update(params.id, body);
      audit({
        action: 'roles.update',
        target: { type: 'role', id: after.id },
        diff: { before: { name: before.name, description: before.description }, after: { name: after.name, description: after.description } },
      });
      return { data: { role: after } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/roles/:id',
    summary: 'Delete a custom role',
    description: 'Built-in roles cannot be deleted, nor a role still held by a user or a live API key: 409 CONFLICT (params.users, params.apiKeys).',
    permission: 'roles.write',
    schema: { params: idParams, response: { 200: okSchema } },
    handler: async ({ kernel, params, audit }) => {
      const role = await roles(kernel).remove(params.id);
      audit({ action: 'roles.delete', target: { type: 'role', id: role.id }, diff: { name: role.name, description: role.description } });
      return { data: { ok: true as const } };
    },
  }),
  route({
    method: 'GET',
    url: '/roles/:id/permissions',
    summary: "A role's grants; for a built-in role, the grants it holds by declaration",
    permission: 'roles.read',
    schema: { params: idParams, response: { 200: grantsBody } },
    handler: async ({ kernel, params }) => {
      const { role, grants } = await roles(kernel).grantsOf(params.id);
      return { data: { roleId: role.id, builtin: role.builtin, grants } };
    },
  }),
  route({
    method: 'PUT',
    url: '/roles/:id/permissions',
    summary: "Replace a custom role's grants",
    description:
      'Each permission must be in the catalog (else 400 naming the grant). A scope narrows a data permission to a connection, table and columns (D9). ' +
      'Built-in roles hold their permissions by declaration: 409 CONFLICT. A caller cannot grant what it does not hold itself: 403 FORBIDDEN. ' +
      'Nor can it take grants away from a role held by a user who holds, through any of their roles, something the caller does not: 403 FORBIDDEN with params.reason escalation.',
    permission: 'roles.write',
    schema: {
      params: idParams,
      body: z.strictObject({ grants: z.array(grantInputSchema).max(1000) }),
      response: { 200: grantsBody },
    },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const known = new Set(kernel.permissions.list().map((p) => p.name));
      const issues: ErrorIssue[] = [];
      body.grants.forEach((g, i) => {
        if (!known.has(g.permission))
          issues.push({
            path: `body.grants.${i}.permission`,
            code: 'unknown_permission',
            message: `No loaded plugin declares the permission ${g.permission}.`,
          });
      });
      if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
      const service = roles(kernel);
      service.assertCoversGrants(principal!, body.grants);
      await service.assertMayStrip(principal!, params.id, body.grants);
      const { before, after } = await service.setGrants(params.id, body.grants);
      audit({ action: 'roles.grants.set', target: { type: 'role', id: params.id }, diff: { before, after } });
      return { data: { roleId: params.id, builtin: false, grants: after } };
    },
  }),
];
