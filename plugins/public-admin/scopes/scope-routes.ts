import { z } from 'zod';
import { cursorField, dataOf, encodeCursor, type Kernel, listQuery, reply, route } from '../../../kernel/api.js';
import { PUBLIC_API_READ, PUBLIC_API_WRITE } from '../access.js';
import { createScopeBody, patchScopeBody } from '../endpoints/definition.js';
import { createScope, deleteScope, patchScope, scopeOf } from './scope-ops.js';
import { scopeSchema } from './schemas.js';
import { publicAdminServiceRef } from '../service.js';

const service = (kernel: Kernel) => kernel.plugin(publicAdminServiceRef);
const tags = ['Public scopes'];
const idParams = z.object({ id: z.string().min(1).max(255).describe('a stored scope id, or the ref of an endpoint (a virtual one has no id)') });
const target = (id: string | null, ref: string) => ({ type: 'publicScope', id: id ?? ref });

export const scopeRoutes = [
  route({
    method: 'GET',
    url: '/public-scopes',
    tags,
    summary: 'Every public endpoint: stored ones and the generated (virtual) one of each table, by ref',
    description:
      'A generated endpoint exposes every column neither secret nor personal, and offers GET, POST, PATCH, PUT, DELETE and BATCH on a table ' +
      'with a primary key, except DELETE when another table cascades from it, and POST when the server cannot choose the key. Its ref is ' +
      'the table ref, prefixed `<connection name>_` only when two connections share it.',
    permission: PUBLIC_API_READ,
    schema: {
      query: listQuery.extend({
        connectionId: z.string().min(1).max(64).optional(),
        cursor: cursorField(z.strictObject({ ref: z.string().min(1).max(255) })),
      }),
      response: { 200: dataOf(z.strictObject({ scopes: z.array(scopeSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query }) => {
      const catalog = await service(kernel).catalog();
      const after = query.cursor?.ref;
      const rows = catalog.entries.filter(
        (e) => (query.connectionId === undefined || e.def.connectionId === query.connectionId) && (after === undefined || e.def.ref > after),
      );
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        data: { scopes: page.map((e) => scopeOf(catalog, e)), nextCursor: rows.length > query.limit && last ? encodeCursor({ ref: last.def.ref }) : null },
      };
    },
  }),
  route({
    method: 'POST',
    url: '/public-scopes',
    tags,
    summary: 'Store an endpoint: a table’s generated one with edits (its generated ref), or an extra endpoint over a table (another ref)',
    description:
      'Keys left out keep the generated values. `allow_cascade` (or allowCascade) lets DELETE cascade. Columns, methods and rules are ' +
      'checked against the table: 400 naming the field. A ref another endpoint has: 409 CONFLICT (reason ref-taken).',
    permission: PUBLIC_API_WRITE,
    schema: { body: createScopeBody, response: { 201: dataOf(z.strictObject({ scope: scopeSchema })) } },
    handler: async ({ kernel, body, audit }) => {
      const scope = await createScope(service(kernel), body);
      audit({ action: 'public-scopes.create', target: target(scope.id, scope.ref), diff: { after: scope } });
      return reply(201, { data: { scope } });
    },
  }),
  route({
    method: 'PATCH',
    url: '/public-scopes/:id',
    tags,
    summary: 'Edit an endpoint; a virtual one (named by its ref) is stored with the edits',
    permission: PUBLIC_API_WRITE,
    schema: { params: idParams, body: patchScopeBody, response: { 200: dataOf(z.strictObject({ scope: scopeSchema })) } },
    handler: async ({ kernel, params, body, audit }) => {
      const { before, after } = await patchScope(service(kernel), params.id, body);
      audit({ action: 'public-scopes.update', target: target(after.id, after.ref), diff: { before, after } });
      return { data: { scope: after } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/public-scopes/:id',
    tags,
    summary: 'Return an edited endpoint to its generated form; remove an extra endpoint (scope null)',
    description:
      'A generated endpoint no key grants becomes virtual again; one a key grants stays stored in the generated form, so the key keeps ' +
      'working. An extra endpoint a live key grants: 409 CONFLICT (reason scope-in-use).',
    permission: PUBLIC_API_WRITE,
    schema: { params: idParams, response: { 200: dataOf(z.strictObject({ scope: scopeSchema.nullable() })) } },
    handler: async ({ kernel, params, audit }) => {
      const { before, after } = await deleteScope(service(kernel), params.id);
      audit({ action: 'public-scopes.reset', target: target(before.id, before.ref), diff: { before, after } });
      return { data: { scope: after } };
    },
  }),
];
