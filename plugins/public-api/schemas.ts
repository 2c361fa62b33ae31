import { z } from 'zod';
import { dataOf, rowObject, rowObjects } from '../../kernel/api.js';
import { PORTABLE_TYPES } from '../../engine/schema/model.js';
import { PUBLIC_METHODS } from '../public-admin/provides.js';
import { publicErrorSchema } from './http/render.js';

/** A row as an endpoint exposes it: its exposed columns in wire form (engine/rows README). */
export const publicRow = rowObject({ id: 'PublicRow', description: 'One row: the endpoint’s exposed columns.' });

/** A page of rows, checked in one pass (a parse per row was the largest allocation of a public list). */
const publicRows = (description?: string) => rowObjects({ $ref: '#/components/schemas/PublicRow' }, description);

export const refParams = z.object({ ref: z.string().min(1).max(200) });
export const recordParams = z.object({ ref: z.string().min(1).max(200), id: z.string().min(1).max(2000) });

/**
 * The list query. Filters are `filter[<column>][<op>]=value` (ops eq, ne, lt, lte, gt, gte, in,
 * like, null; `filter[<column>]=v` is eq), so the object takes further keys; the plugin refuses
 * what the endpoint does not allow with PUBLIC_QUERY_REFUSED.
 */
const queryValue = z.union([z.string(), z.array(z.string())]);
export const listQuery = z
  .object({
    limit: queryValue.optional().meta({ description: 'Rows per page, 1 to 200 (default 20).' }),
    cursor: queryValue.optional().meta({ description: 'The next cursor of the previous page (wrapped `cursor`, or X-Next-Cursor).' }),
    sort: queryValue.optional().meta({ description: '`-col,col2` over orderable columns; newest primary key first by default.' }),
    search: queryValue.optional().meta({ description: 'Case-insensitive text over the searchable columns.' }),
    fields: queryValue.optional().meta({ description: 'Comma list of the columns to answer.' }),
  })
  .catchall(queryValue);

export const wrappedList = z.strictObject({
  data: publicRows(),
  page: z.strictObject({ limit: z.number().int(), count: z.number().int() }),
  cursor: z.string().nullable(),
});
export const bareList = publicRows('Bare array; the next cursor is in X-Next-Cursor.');
export const singleRow = dataOf(publicRow);

/** One of the endpoint's three response shapes (seed "Public endpoint"). */
export const listResponse = z.union([wrappedList, bareList, singleRow]).meta({ id: 'PublicList' });

export const valuesBody = z.strictObject({ values: z.record(z.string(), z.unknown()) });
export const batchBody = z.strictObject({ rows: z.array(z.unknown()) });
export const batchData = dataOf(z.strictObject({ count: z.number().int() }));
export const emptyData = dataOf(z.strictObject({}));

export const availabilityQuery = z.object({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'A date, YYYY-MM-DD, on the venue’s calendar.'),
  party: z.coerce.number().int().min(1).max(100_000),
});
export const availabilityData = dataOf(z.array(z.strictObject({ time: z.string(), state: z.enum(['free', 'full']) })));

export const claimBody = z.strictObject({ ref: z.string().min(1).max(200), values: z.record(z.string(), z.unknown()) });
export const claimData = dataOf(z.strictObject({ session: z.string(), expiresAt: z.number().int() }));

const configColumn = z.strictObject({
  name: z.string(),
  type: z.enum(PORTABLE_TYPES),
  nullable: z.boolean(),
  writable: z.boolean(),
  maxLength: z.number().int().nullable(),
  enumValues: z.array(z.string()).nullable(),
});

const configEndpoint = z.strictObject({
  ref: z.string(),
  methods: z.array(z.enum(PUBLIC_METHODS)),
  shape: z.enum(['wrapped', 'array', 'single']),
  rateLimit: z.number().int(),
  needsSession: z.boolean(),
  primaryKey: z.array(z.string()),
  columns: z.array(configColumn),
  filterable: z.array(z.string()),
  orderable: z.array(z.string()),
  searchable: z.array(z.string()),
  identity: z.array(z.string()),
  timeZone: z.string(),
  booking: z
    .strictObject({
      timeColumn: z.string(),
      partyColumn: z.string().nullable(),
      capacity: z.number().int(),
      slotMinutes: z.number().int(),
      windowDays: z.number().int(),
      cancelBeforeMinutes: z.number().int(),
    })
    .nullable(),
});

const publicConfigSchema = z.strictObject({
  key: z.strictObject({ kind: z.enum(['browser', 'server']), prefix: z.string(), expiresAt: z.number().nullable() }),
  endpoints: z.array(configEndpoint),
  limits: z.strictObject({
    pageSize: z.number().int(),
    maxPageSize: z.number().int(),
    batchMax: z.number().int(),
    perAddressPerMinute: z.number().int(),
    keyReadsPerMinute: z.number().int().nullable(),
    keyWritesPerMinute: z.number().int().nullable(),
    visitorReadsPerMinute: z.number().int().nullable(),
    visitorWritesPerMinute: z.number().int().nullable(),
  }),
});
export type PublicConfig = z.infer<typeof publicConfigSchema>;
export const configData = dataOf(publicConfigSchema.meta({ id: 'PublicConfig' }));

/** Every refusal a public route can answer, in the public envelope (no request id). */
export const publicErrors = {
  400: publicErrorSchema,
  401: publicErrorSchema,
  403: publicErrorSchema,
  404: publicErrorSchema,
  409: publicErrorSchema,
  429: publicErrorSchema,
  503: publicErrorSchema,
} as const;
