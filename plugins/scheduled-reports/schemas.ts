import { z } from 'zod';
import { dataOf, emailField } from '../../kernel/api.js';
import { exportQuerySchema } from '../exports/provides.js';

export const REPORT_FORMATS = ['csv', 'xlsx', 'jsonl', 'summary'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const id = z.string().min(1).max(64);

export const reportSourceSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('view'),
      pageId: id,
      viewId: id.optional().meta({
        description:
          "A shared view of the page (GET /pages/{pageId}/views): its query is exported. Without it, the page's default view, else the page's config (RP3). " +
          'A view deleted later: the runs fall back the same way and the mail says so (RP8).',
      }),
    }),
    z.strictObject({
      kind: z.literal('table'),
      connectionId: id,
      table: z.string().min(1).max(255).meta({ description: 'The table ref (SC2).' }),
      query: exportQuerySchema.default({}).meta({ description: 'What POST /exports takes besides the table: columns, filter (D12), sort.' }),
    }),
    z.strictObject({ kind: z.literal('dashboard'), pageId: id }),
  ])
  .meta({ id: 'ReportSource' });
export type ReportSource = z.infer<typeof reportSourceSchema>;

export const recipientSchema = z.union([z.strictObject({ userId: id }), z.strictObject({ email: emailField })]).meta({ id: 'ReportRecipient' });
export type Recipient = z.infer<typeof recipientSchema>;

export const scheduleSchema = z.strictObject({
  cron: z.string().min(1).max(120).meta({ description: 'Five fields (minute hour day month weekday); at most once an hour.' }),
  timeZone: z.string().min(1).max(64).meta({ description: 'IANA time zone the pattern is read in.' }),
});

export const lastRunSchema = z.strictObject({
  jobId: z.string(),
  at: z.number().int(),
  state: z.enum(['running', 'succeeded', 'failed']),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
});

export const reportSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    ownerId: z.string(),
    source: reportSourceSchema,
    format: z.enum(REPORT_FORMATS),
    schedule: scheduleSchema,
    recipients: z.array(recipientSchema),
    subject: z.string(),
    message: z.string(),
    enabled: z.boolean(),
    nextRunAt: z.number().int().nullable().meta({ description: 'The next due time (ms); null while disabled.' }),
    lastRun: lastRunSchema.nullable(),
    failures: z.number().int().meta({ description: 'Failed runs in a row; three disable the report (RP5).' }),
    disabledReason: z.string().nullable().meta({ description: 'Why the report was disabled by its runs, until it is enabled again.' }),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'ScheduledReport' });
export type Report = z.infer<typeof reportSchema>;

const fields = {
  name: z.string().trim().min(1).max(120),
  source: reportSourceSchema,
  format: z.enum(REPORT_FORMATS),
  schedule: scheduleSchema,
  recipients: z.array(recipientSchema).min(1).max(50),
  subject: z.string().max(200).default(''),
  message: z.string().max(2000).default(''),
  enabled: z.boolean().default(true),
};

export const createReportBody = z.strictObject(fields);
export type CreateReport = z.infer<typeof createReportBody>;

export const patchReportBody = z
  .strictObject({
    name: fields.name.optional(),
    source: fields.source.optional(),
    format: fields.format.optional(),
    schedule: fields.schedule.optional(),
    recipients: fields.recipients.optional(),
    subject: z.string().max(200).optional(),
    message: z.string().max(2000).optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: 'Name at least one field to change.' });
export type PatchReport = z.infer<typeof patchReportBody>;

export const reportIdParams = z.object({ id });
export const reportBody = dataOf(z.strictObject({ report: reportSchema }));
