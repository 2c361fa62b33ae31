import { AppError, errorEnvelopeSchema, route } from '../../kernel/api.js';
import { findEntry, listEntries } from './query.js';
import { auditEntryData, auditIdParams, auditListData, auditQuery } from './schemas.js';

export const AUDIT_READ = 'audit.read';

// Read-only on purpose: the trail is append-only, and no route edits or deletes an entry.
export const auditRoutes = [
  route({
    method: 'GET',
    url: '/audit',
    summary: 'The audit trail, newest first',
    description:
      "D6 list (limit 1..500, default 50; keyset cursor). Filters combine with AND: actorId, actorType, action (exact, or a prefix when it ends in '.'), targetType, targetId, from (inclusive) and to (exclusive) in ms since the epoch.",
    permission: AUDIT_READ,
    schema: { query: auditQuery, response: { 200: auditListData } },
    handler: async ({ kernel, query }) => ({ data: await listEntries(kernel.db, query) }),
  }),
  route({
    method: 'GET',
    url: '/audit/:id',
    summary: 'One audit entry',
    permission: AUDIT_READ,
    schema: { params: auditIdParams, response: { 200: auditEntryData, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, params }) => {
      const entry = await findEntry(kernel.db, params.id);
      if (!entry) throw new AppError('NOT_FOUND');
      return { data: { entry } };
    },
  }),
];
