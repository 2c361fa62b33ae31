import { z } from 'zod';
import { AppError, cursorField, dataOf, encodeCursor, type Kernel, listQuery, okSchema, reply, route } from '../../kernel/api.js';
import { apiKeysServiceRef, apiKeySchema } from './service.js';
import { rolesRef } from '../roles/provides.js';

const keys = (kernel: Kernel) => kernel.plugin(apiKeysServiceRef);
const roles = (kernel: Kernel) => kernel.plugin(rolesRef);

export const apiKeyRoutes = [
  route({
    method: 'GET',
    url: '/api-keys',
    summary: 'Live (unrevoked) API keys in creation order; secrets are never shown again',
    permission: 'api-keys.read',
    schema: {
      query: listQuery.extend({ cursor: cursorField(z.strictObject({ id: z.string().min(1).max(64) })) }),
      response: { 200: dataOf(z.strictObject({ apiKeys: z.array(apiKeySchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query }) => {
      // Uses noted in memory since the last write-back are written first, so lastUsedAt is current.
      await kernel.principals.flush();
      const page = await keys(kernel).list(query.limit, query.cursor?.id);
      return { data: { apiKeys: page.apiKeys, nextCursor: page.nextId ? encodeCursor({ id: page.nextId }) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/api-keys',
    summary: 'Create a role-bound key (adm_sk_); the answer carries the secret, once',
    description:
      'Only from a signed-in session (an API key cannot mint keys): 403 FORBIDDEN. The role must exist (else 400 naming body.roleId) and ' +
      'hold nothing the caller does not hold itself (else 403 FORBIDDEN). The key stops while its creator is not active.',
    permission: 'api-keys.write',
    schema: {
      body: z.strictObject({ name: z.string().trim().min(1).max(120), roleId: z.string().min(1).max(64) }),
      response: { 201: dataOf(z.strictObject({ apiKey: apiKeySchema, secret: z.string() })) },
    },
    handler: async ({ kernel, body, principal, audit }) => {
      if (principal!.kind !== 'session' || !principal!.userId) {
        throw new AppError('FORBIDDEN', {
          message: 'API keys are created from a signed-in session, not with another key.',
          params: { permission: 'api-keys.write', reason: 'session-required' },
        });
      }
      if ((await roles(kernel).unknownRoleIds([body.roleId])).length) {
        throw new AppError('VALIDATION_FAILED', { issues: [{ path: 'body.roleId', code: 'unknown_role', message: `No role ${body.roleId}.` }] });
      }
      await roles(kernel).assertCovers(principal!, [body.roleId]);
      const { apiKey, secret } = await keys(kernel).create({ name: body.name, roleId: body.roleId, createdBy: principal!.userId });
      // Never the secret: the diff names the key by its prefix only.
      audit({
        action: 'api-keys.create',
        target: { type: 'apiKey', id: apiKey.id },
        diff: { name: apiKey.name, roleId: apiKey.roleId, prefix: apiKey.prefix },
      });
      return reply(201, { data: { apiKey, secret } });
    },
  }),
  route({
    method: 'DELETE',
    url: '/api-keys/:id',
    summary: 'Revoke a key; it is refused from the very next request',
    description: 'An unknown or already revoked key answers 404.',
    permission: 'api-keys.write',
    schema: { params: z.object({ id: z.string().min(1).max(64) }), response: { 200: okSchema } },
    handler: async ({ kernel, params, audit }) => {
      const key = await keys(kernel).revoke(params.id);
      audit({ action: 'api-keys.revoke', target: { type: 'apiKey', id: key.id }, diff: { name: key.name, roleId: key.roleId, prefix: key.prefix } });
      return { data: { ok: true as const } };
    },
  }),
];
