import { z } from 'zod';
import { dataOf } from '../../kernel/api.js';
import { MAX_BATCH } from './options.js';

export const METRIC_OPS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export type MetricOp = (typeof METRIC_OPS)[number];
export const BUCKET_UNITS = ['hour', 'day', 'week', 'month'] as const;
export type BucketUnit = (typeof BUCKET_UNITS)[number];

const columnName = z.string().min(1).max(128);

/**
 * A dashboard widget's question (issue 28 §2). The shape is checked here; columns, types, the
 * zone and the page against the table and the caller in check.ts, with the same paths, so a
 * layout (PATCH /pages/{pageId}/layout) is checked exactly as a query is.
 */
export const widgetQuerySchema = z
  .strictObject({
    connectionId: z.string().min(1).max(64),
    table: z.string().min(1).max(256).describe("The table's ref, as /data names it."),
    metric: z.strictObject({
      op: z.enum(METRIC_OPS),
      column: columnName.optional().describe('Required but for count (count without a column counts rows).'),
    }),
    groupBy: z
      .strictObject({
        column: columnName,
        limit: z.number().int().optional().describe('1–50 groups, the largest values first (default 10).'),
        other: z.boolean().optional().describe('Also answer the metric over every row outside those groups (`other`).'),
      })
      .optional(),
    timeBucket: z
      .strictObject({
        column: columnName,
        unit: z.enum(BUCKET_UNITS),
        timeZone: z.string().min(1).max(64).optional().describe('IANA name, UTC (the default) or a fixed offset ±HH:MM; weeks start on Monday.'),
      })
      .optional(),
    range: z
      .strictObject({
        column: columnName,
        from: z.string().max(64).optional().describe('Inclusive, as /data takes a value of the column (a datetime with Z or an offset is converted to UTC).'),
        to: z.string().max(64).optional().describe('Exclusive.'),
      })
      .optional(),
    filters: z
      .record(z.string().max(300), z.union([z.string().max(10_000), z.array(z.string().max(10_000)).max(500)]))
      .optional()
      .describe('The data API grammar as an object: {"filter[status][eq]": "active", "filter[id][in]": "1,2"}.'),
    pageId: z.string().min(1).max(64).optional().describe("A page the caller may see: its config's filters apply too, and cannot be removed."),
  })
  .meta({ id: 'WidgetQuery' });
export type WidgetQuery = z.infer<typeof widgetQuerySchema>;

const value = z.union([z.number(), z.string(), z.boolean(), z.null()]);

export const widgetResultSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('value'), value }),
    z.strictObject({
      kind: z.literal('groups'),
      groups: z.array(z.strictObject({ key: value, value })),
      other: value.optional().describe('The metric over the rows of every other group, when asked and there are more groups.'),
    }),
    z.strictObject({ kind: z.literal('series'), points: z.array(z.strictObject({ t: z.number().describe('Bucket start, epoch ms.'), value })) }),
  ])
  .meta({ id: 'WidgetResult' });
export type WidgetResult = z.infer<typeof widgetResultSchema>;

export const widgetMetaSchema = z.strictObject({
  exact: z.boolean(),
  /** The database's time for the result (when cached, the run that computed it). */
  elapsedMs: z.number(),
  rowsScanned: z.number().optional(),
  /** When the database computed the result (D3); a cached one is at most 10 s old (WD6). */
  computedAt: z.number().int(),
  /** Answered from a result computed for the same statement moments ago (WD6). */
  cached: z.boolean(),
});
export type WidgetMeta = z.infer<typeof widgetMetaSchema>;

export const queryBody = z.strictObject({
  query: widgetQuerySchema,
  fresh: z
    .boolean()
    .optional()
    .describe(
      "True: a result kept from moments ago is not used; the database is asked (a run already under way is still shared). The dashboard's Refresh button sends it (WD6).",
    ),
});
export const queryResponse = dataOf(z.strictObject({ result: widgetResultSchema, meta: widgetMetaSchema }));

export const batchBody = z.strictObject({
  queries: z
    .array(z.strictObject({ id: z.string().min(1).max(64), query: z.unknown().describe('A WidgetQuery; each is checked on its own.') }))
    .min(1)
    .max(MAX_BATCH),
  fresh: z
    .boolean()
    .optional()
    .describe(
      "True: a result kept from moments ago is not used; the database is asked (a run already under way is still shared). The dashboard's Refresh button sends it (WD6).",
    ),
});

const batchError = z.strictObject({
  code: z.string(),
  message: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
  issues: z.array(z.strictObject({ path: z.string(), code: z.string(), message: z.string() })).optional(),
});

export const batchResponse = dataOf(
  z.strictObject({
    results: z.array(
      z.union([
        z.strictObject({ id: z.string(), ok: z.literal(true), result: widgetResultSchema, meta: widgetMetaSchema }),
        z.strictObject({ id: z.string(), ok: z.literal(false), error: batchError }),
      ]),
    ),
  }),
);
