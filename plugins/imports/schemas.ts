import { z } from 'zod';
import { dataOf } from '../../kernel/api.js';
import { GUESSED_TYPES } from './detect.js';
import { UPLOAD_FORMATS } from './sources/index.js';

export const uploadSchema = z
  .strictObject({
    id: z.string(),
    fileName: z.string(),
    format: z.enum(UPLOAD_FORMATS).meta({
      description: 'Detected from the content: XLSX by its zip signature, JSON (an array of objects, or JSON lines) by its first character, else CSV.',
    }),
    size: z.number().int(),
    delimiter: z.string().nullable().meta({ description: 'CSV: the delimiter found on the header line (, ; tab |).' }),
    columns: z.array(z.strictObject({ name: z.string(), type: z.enum(GUESSED_TYPES), empty: z.number().int() })),
    sampleRows: z.array(z.record(z.string(), z.unknown())),
    rowCount: z.number().int(),
    problems: z.number().int().meta({ description: 'Records that could not be read (malformed CSV, JSON that is no object); an import refuses them.' }),
    createdAt: z.number().int(),
    expiresAt: z.number().int(),
  })
  .meta({ id: 'ImportUpload' });
export type Upload = z.infer<typeof uploadSchema>;

export const IMPORT_STATES = ['created', 'queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type ImportState = (typeof IMPORT_STATES)[number];

export const importSchema = z
  .strictObject({
    id: z.string(),
    uploadId: z.string(),
    connectionId: z.string(),
    table: z.string(),
    mapping: z.record(z.string(), z.string().nullable()),
    mode: z.enum(['insert', 'upsert']),
    upsertKey: z.array(z.string()).nullable(),
    atomic: z.boolean(),
    batchSize: z.number().int(),
    dryRun: z.boolean(),
    state: z.enum(IMPORT_STATES),
    jobId: z.string().nullable(),
    progress: z.number().min(0).max(1).nullable(),
    counts: z.strictObject({
      total: z.number().int().meta({ description: 'Records read so far.' }),
      inserted: z.number().int(),
      updated: z.number().int(),
      refused: z.number().int(),
    }),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    createdBy: z.strictObject({ type: z.enum(['user', 'apiKey']), id: z.string() }),
    createdAt: z.number().int(),
    startedAt: z.number().int().nullable(),
    finishedAt: z.number().int().nullable(),
  })
  .meta({ id: 'Import' });
export type Import = z.infer<typeof importSchema>;

export const createImportBody = z.strictObject({
  uploadId: z.string().min(1).max(64),
  connectionId: z.string().min(1).max(64),
  table: z.string().min(1).max(255),
  mapping: z
    .record(z.string().max(255), z.string().min(1).max(255).nullable())
    .refine((m) => Object.keys(m).length <= 1000, 'At most 1000 columns.')
    .meta({ description: '{<source column>: <table column> | null}; null (or leaving a column out) skips it.' }),
  mode: z.enum(['insert', 'upsert']).default('insert'),
  upsertKey: z
    .array(z.string().min(1).max(255))
    .min(1)
    .max(32)
    .optional()
    .meta({ description: 'Upsert: table columns forming the primary key or a unique constraint.' }),
  atomic: z.boolean().default(true).meta({
    description:
      'true: all rows or none (one transaction; any refused row fails the import). false: a transaction per batch; refused rows are skipped and listed.',
  }),
  batchSize: z.number().int().min(1).max(10_000).default(1000),
  dryRun: z
    .boolean()
    .default(false)
    .meta({ description: 'Validate every row, in a transaction that is rolled back: counts and the error report, nothing written.' }),
});
export type CreateImport = z.infer<typeof createImportBody>;

export const uploadBody = dataOf(z.strictObject({ upload: uploadSchema }));
export const importBody = dataOf(z.strictObject({ import: importSchema }));
export const idParams = z.object({ id: z.string().min(1).max(64) });
