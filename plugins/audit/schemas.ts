import { z } from 'zod';
import { dataOf } from '../../kernel/api.js';

const ACTOR_TYPES = ['user', 'apiKey', 'anonymous', 'system'] as const;

export const auditEntrySchema = z
  .strictObject({
    id: z.string(),
    at: z.number(),
    actor: z.strictObject({ type: z.enum(ACTOR_TYPES), id: z.string().nullable() }),
    action: z.string(),
    target: z.strictObject({ type: z.string(), id: z.string().nullable() }).nullable(),
    diff: z.unknown().meta({ description: 'What changed, as recorded (secrets redacted), or null' }),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    requestId: z.string().nullable(),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** Ids are 26 Crockford base32 characters (K12); a cursor is the last id of the page before. */
const cursorField = z.string().regex(/^[0-9a-hjkmnp-tv-z]{26}$/, 'Not a cursor this API gave out');
const ms = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const auditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: cursorField.optional(),
  actorId: z.string().min(1).max(32).optional(),
  actorType: z.enum(ACTOR_TYPES).optional(),
  action: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "Exact action; a value ending in '.' matches every action it starts (users. → users.create, users.roles.set)" }),
  targetType: z.string().min(1).max(50).optional(),
  targetId: z.string().min(1).max(200).optional(),
  from: ms.optional().meta({ description: 'Entries at or after this time (ms since the epoch)' }),
  to: ms.optional().meta({ description: 'Entries before this time (ms since the epoch, exclusive)' }),
});
export type AuditFilters = z.output<typeof auditQuery>;

export const auditListData = dataOf(z.strictObject({ entries: z.array(auditEntrySchema), nextCursor: z.string().nullable() }));
export const auditEntryData = dataOf(z.strictObject({ entry: auditEntrySchema }));
export const auditIdParams = z.object({ id: z.string().min(1).max(64) });
