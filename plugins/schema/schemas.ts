import { z } from 'zod';
import { cursorField, dataOf, listQuery } from '../../kernel/api.js';
import { schemaModelSchema } from '../../engine/schema/model.js';
import { diffSummarySchema, schemaDiffSchema } from './diff.js';
import { effectiveModelSchema } from './effective.js';
import { overridesSchema, schemaProblemSchema } from './overrides.js';
import { snapshotSchema } from './snapshots.js';

const id = z.string().min(1).max(64);
export const connectionParams = z.object({ id });
export const snapshotParams = z.object({ id, snapshotId: id });

export const introspectBody = dataOf(
  z.strictObject({
    snapshot: snapshotSchema,
    /** False when the latest snapshot already had this structure (it is answered instead). */
    created: z.boolean(),
    /** What changed against the previous snapshot; only when a snapshot was created. */
    diff: diffSummarySchema.optional(),
  }),
);

export const schemaBody = dataOf(
  z.strictObject({
    snapshotId: z.string(),
    snapshot: snapshotSchema,
    model: effectiveModelSchema,
    overrides: overridesSchema,
    problems: z.array(schemaProblemSchema),
  }),
);

export const snapshotListQuery = listQuery.extend({ cursor: cursorField(z.strictObject({ id })) });
export const snapshotListBody = dataOf(z.strictObject({ snapshots: z.array(snapshotSchema), nextCursor: z.string().nullable() }));
export const snapshotBody = dataOf(z.strictObject({ snapshot: snapshotSchema, model: schemaModelSchema }));

export const diffQuery = z.object({ from: id.optional(), to: id.optional() });
export const diffBody = dataOf(z.strictObject({ from: snapshotSchema.nullable(), to: snapshotSchema, diff: schemaDiffSchema }));

export const overridesBody = dataOf(
  z.strictObject({
    overrides: overridesSchema,
    problems: z.array(schemaProblemSchema),
    /** The snapshot the problems were found against; null before the first introspection. */
    snapshotId: z.string().nullable(),
    updatedAt: z.number().nullable(),
  }),
);

export const generateInput = z.strictObject({
  /** Table refs; default: every table that is not hidden. */
  tables: z.array(z.string().min(1).max(255)).min(1).max(5000).optional(),
  dryRun: z.boolean().optional(),
});

const generatedPage = z
  .strictObject({
    /** Null in a dry run for a page not created yet. */
    id: z.string().nullable(),
    generatedKey: z.string(),
    kind: z.enum(['list', 'detail']),
    table: z.string(),
    slug: z.string(),
    title: z.string(),
  })
  .meta({ id: 'GeneratedPage' });
export type GeneratedPage = z.infer<typeof generatedPage>;

export const generateBody = dataOf(
  z.strictObject({
    dryRun: z.boolean(),
    snapshotId: z.string(),
    /** Made by this call (in a dry run: what would be made). */
    created: z.array(generatedPage),
    /** Generated earlier and left as they are. */
    existing: z.array(generatedPage),
    skipped: z.array(z.strictObject({ table: z.string(), kind: z.enum(['list', 'detail']), reason: z.enum(['no-primary-key']) })),
  }),
);
