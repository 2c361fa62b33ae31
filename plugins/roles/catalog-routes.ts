import { z } from 'zod';
import { cursorField, dataOf, encodeCursor, listQuery, route } from '../../kernel/api.js';
import { catalogEntrySchema } from './schemas.js';

export const catalogRoutes = [
  route({
    method: 'GET',
    url: '/permissions/catalog',
    summary: "The union of the loaded plugins' declared permissions, by name",
    description: 'builtinRoles names the built-in roles holding each permission by declaration; admin holds every one.',
    permission: 'roles.read',
    schema: {
      query: listQuery.extend({ cursor: cursorField(z.strictObject({ name: z.string().min(1).max(200) })) }),
      response: { 200: dataOf(z.strictObject({ permissions: z.array(catalogEntrySchema), nextCursor: z.string().nullable() })) },
    },
    handler: ({ kernel, query }) => {
      // list() is sorted by name, so the name is the keyset.
      const all = kernel.permissions.list().filter((p) => !query.cursor || p.name > query.cursor.name);
      const page = all.slice(0, query.limit);
      const last = page[page.length - 1];
      return {
        data: {
          permissions: page.map((p) => ({
            name: p.name,
            label: p.label,
            description: p.description,
            plugin: p.plugin,
            builtinRoles: ['admin' as const, ...(p.roles ?? [])],
          })),
          nextCursor: all.length > query.limit && last ? encodeCursor({ name: last.name }) : null,
        },
      };
    },
  }),
];
