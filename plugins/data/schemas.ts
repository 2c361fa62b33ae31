import { z } from 'zod';
import { dataOf, recordIdList, rowObject, rowObjects } from '../../kernel/api.js';
import { FILTER_OPS } from '../../engine/rows/index.js';

export const MAX_BULK = 500;

export const tableParams = z.object({
  connectionId: z.string().min(1).max(64),
  table: z.string().min(1).max(300).describe('the table ref: its name, or schema.name outside the default namespace (SC2)'),
});
export const recordParams = tableParams.extend({
  recordId: z
    .string()
    .min(1)
    .max(4000)
    .describe('the primary key value; for a composite or binary key, base64url of the JSON array of its values in key order'),
});
export const undoParams = z.object({ token: z.string().min(1).max(200) });

/** Declared for the documentation; filter[...] keys pass through and are read by the row code. */
export const listQuery = z
  .looseObject({
    limit: z.string().optional().describe('1..500, default 50'),
    cursor: z.string().max(8000).optional().describe('nextCursor of the previous page'),
    sort: z.string().max(2000).optional().describe('-col,col2: descending with a minus; the primary key breaks ties; NULL sorts last ascending'),
    fields: z.string().max(8000).optional().describe('col,col2: the columns to answer (the primary key always comes)'),
    search: z.string().optional().describe('case-insensitive text contained in any readable string or text column'),
  })
  .describe(
    `Filters: filter[col][op]=value with op one of ${FILTER_OPS.join(', ')}; filter[col]=value is eq. in takes a comma list, null takes true or false, like is case-insensitive with % and _.`,
  );

const row = rowObject({ id: 'DataRow', description: 'Column name → wire value (decisions DA3).' });
const values = z.record(z.string(), z.unknown()).describe('column → value, in the same representation rows are answered in');

export const createBody = z.strictObject({ values });
export const patchBody = z.strictObject({ values });
export const bulkBody = z.strictObject({
  operations: z
    .array(
      z.strictObject({
        op: z.enum(['create', 'update', 'delete']),
        recordId: z.string().min(1).max(4000).optional(),
        values: values.optional(),
      }),
    )
    .min(1)
    .max(MAX_BULK),
});

const opResult = z.strictObject({ op: z.enum(['create', 'update', 'delete']), recordId: z.string(), row: row.nullable() }).meta({ id: 'DataOpResult' });
const undoToken = z.string().describe('POST /data/undo/{token} within 10 minutes reverts this write');

export const listResponse = dataOf(
  z.strictObject({
    rows: rowObjects({ $ref: '#/components/schemas/DataRow' }),
    recordIds: recordIdList('the record id of each row, in order; null for a table without a primary key'),
    nextCursor: z.string().nullable(),
    total: z.number().int().nullable(),
    totalExact: z.boolean(),
  }),
);
export const rowResponse = dataOf(z.strictObject({ row, recordId: z.string() }));
export const writeResponse = dataOf(z.strictObject({ row, recordId: z.string(), undoToken }));
export const deleteResponse = dataOf(z.strictObject({ recordId: z.string(), undoToken }));
export const resultsResponse = dataOf(z.strictObject({ results: z.array(opResult), undoToken }));
export const referencesResponse = dataOf(
  z.strictObject({
    references: z.array(
      z
        .strictObject({
          table: z.string(),
          foreignKey: z.string().nullable(),
          columns: z.array(z.string()),
          referencedColumns: z.array(z.string()),
          onDelete: z.enum(['cascade', 'restrict', 'set null', 'set default', 'no action']),
          count: z.number().int(),
          recordIds: z.array(z.string()),
        })
        .meta({ id: 'DataReference' }),
    ),
  }),
);
