import { z } from 'zod';
import { gridFilterSchema } from '../grid-query.js';

const columnName = z.string().min(1).max(255);

/** Exactly what GET /data/{conn}/{table} takes, as JSON (the grid's URL, DB23), plus the grid's column widths. */
export const viewQuerySchema = z
  .strictObject({
    sort: z.string().max(2000).optional().describe('As the data API’s sort: -col,col2.'),
    search: z.string().max(200).optional(),
    filters: z.array(gridFilterSchema).max(50).optional(),
    columns: z.array(columnName).min(1).max(500).optional().describe('As the data API’s fields, listed.'),
    columnWidths: z.record(columnName, z.number().int().min(20).max(2000)).optional(),
  })
  .meta({ id: 'PageViewQuery' });

export const viewSchema = z
  .strictObject({
    id: z.string(),
    pageId: z.string(),
    name: z.string(),
    query: viewQuerySchema,
    isDefault: z.boolean(),
    createdBy: z.string().nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'PageView' });

export const viewName = z.string().trim().min(1).max(120);
export const viewIdParams = z.object({ pageId: z.string().min(1).max(64), viewId: z.string().min(1).max(64) });
