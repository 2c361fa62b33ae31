import { z } from 'zod';
import { dataOf } from '../../kernel/api.js';
import { EXPORT_FORMATS } from './formats/index.js';
import { filterSchema, searchSchema, sortSchema } from './query.js';

export const EXPORT_STATES = ['queued', 'running', 'ready', 'failed', 'cancelled', 'expired'] as const;
export type ExportState = (typeof EXPORT_STATES)[number];

export const exportSchema = z
  .strictObject({
    id: z.string(),
    connectionId: z.string(),
    table: z.string().meta({ description: 'The table ref (SC2).' }),
    format: z.enum(EXPORT_FORMATS),
    columns: z.array(z.string()),
    filter: filterSchema.nullable(),
    search: z.string().nullable().meta({ description: 'The text searched for in the readable text columns, else null.' }),
    sort: z.string().nullable(),
    formulaSafe: z.boolean().meta({ description: 'Whether CSV text that a spreadsheet would run as a formula carries a leading apostrophe.' }),
    state: z.enum(EXPORT_STATES),
    jobId: z.string().nullable(),
    progress: z.number().min(0).max(1).nullable().meta({ description: '0..1 while running; 1 once ready.' }),
    rowCount: z.number().int().nullable(),
    bytes: z.number().int().nullable(),
    fileName: z.string().nullable().meta({ description: 'The name the download carries, once ready.' }),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    createdBy: z.strictObject({ type: z.enum(['user', 'apiKey']), id: z.string() }),
    createdAt: z.number().int(),
    startedAt: z.number().int().nullable(),
    finishedAt: z.number().int().nullable(),
    expiresAt: z.number().int().nullable().meta({ description: 'When the file is removed (ready exports).' }),
  })
  .meta({ id: 'Export' });
export type Export = z.infer<typeof exportSchema>;

export const createExportBody = z.strictObject({
  connectionId: z.string().min(1).max(64),
  table: z.string().min(1).max(255),
  format: z.enum(EXPORT_FORMATS),
  columns: z
    .array(z.string().min(1).max(255))
    .min(1)
    .max(1000)
    .optional()
    .meta({ description: 'Default: every readable column that is neither secret nor hidden.' }),
  filter: filterSchema.optional(),
  search: searchSchema.optional(),
  sort: sortSchema.optional(),
  formulaSafe: z
    .boolean()
    .optional()
    .meta({
      description:
        'CSV: a text cell starting with =, +, -, @, tab or CR (and not a number) gets a leading apostrophe, so a spreadsheet shows it instead of running it; ' +
        'XLSX keeps such values as text cells (never formulas) either way. Default: true when a person (a session) asks, false for an API key. ' +
        'false gives the raw values, which our import reads back exactly.',
    }),
});
export type CreateExport = z.infer<typeof createExportBody>;

export const exportBody = dataOf(z.strictObject({ export: exportSchema }));
export const exportIdParams = z.object({ id: z.string().min(1).max(64) });
