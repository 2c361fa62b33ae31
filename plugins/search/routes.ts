import { z } from 'zod';
import { AppError, dataOf, type ErrorIssue, route, SIGNED_IN } from '../../kernel/api.js';
import { SEARCH_TYPES, searchServiceRef, type SearchType } from './service.js';

const itemSchema = z
  .strictObject({
    id: z.string(),
    title: z.string(),
    subtitle: z.string(),
    url: z.string().describe('The dashboard path that opens it.'),
    score: z.number().describe('Higher is better; comparable within a group only.'),
  })
  .meta({ id: 'SearchItem' });

const answerSchema = z.strictObject({
  q: z.string(),
  groups: z.array(z.strictObject({ type: z.enum(SEARCH_TYPES), items: z.array(itemSchema) })),
  partial: z.boolean().describe('Some tables’ rows were not searched: they ran out of time or could not be reached.'),
});

export const searchRoutes = [
  route({
    method: 'GET',
    url: '/search',
    summary: 'Find pages, tables, connections, users, roles, add-ons, settings screens and rows by name',
    description:
      'Typo tolerant and by prefix (decisions SR1–SR5). Only what the caller may see: users with users.read, roles with roles.read, connections with ' +
      'connections.read, add-ons with add-ons.read, pages by the page rule (PG2), tables by a data.read grant; a type the caller may not see is absent, ' +
      'never a 403. Rows come from tables a visible page marks `searchable: true`, by its display column (prefix matches first, then contains), ' +
      'at most 5 a table, 300 ms a table and 1 s in all; a table out of time sets `partial`. Groups without items are left out. ' +
      '400 VALIDATION_FAILED: `q` empty, blank, longer than 200 characters or holding U+0000 (`nul-character`); an unknown type (`unknown-type`).',
    permission: SIGNED_IN,
    schema: {
      query: z.object({
        q: z.string().min(1).max(200),
        types: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe(`A comma list of ${SEARCH_TYPES.join(', ')}; all of them when absent.`),
        limit: z.coerce.number().int().min(1).max(20).default(5).describe('Items per type.'),
      }),
      response: { 200: dataOf(answerSchema) },
    },
    handler: async ({ kernel, query, principal }) => {
      const issues: ErrorIssue[] = [];
      if (query.q.includes('\u0000')) issues.push({ path: 'query.q', code: 'nul-character', message: 'The text cannot hold U+0000.' });
      else if (query.q.trim() === '') issues.push({ path: 'query.q', code: 'blank', message: 'Type something to search for.' });
      let types: SearchType[] = [...SEARCH_TYPES];
      if (query.types !== undefined) {
        const asked = query.types.split(',').map((t) => t.trim());
        const unknown = asked.filter((t) => !(SEARCH_TYPES as readonly string[]).includes(t));
        for (const t of unknown)
          issues.push({ path: 'query.types', code: 'unknown-type', message: `No type ${JSON.stringify(t)}; one of ${SEARCH_TYPES.join(', ')}.` });
        types = SEARCH_TYPES.filter((t) => asked.includes(t));
      }
      if (issues.length > 0) throw new AppError('VALIDATION_FAILED', { issues });
      return { data: await kernel.plugin(searchServiceRef).search(principal!, query.q.trim(), types, query.limit) };
    },
  }),
];
