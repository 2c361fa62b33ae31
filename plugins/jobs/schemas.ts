import { z } from 'zod';
import { dataOf, JOB_STATES, jobSchema } from '../../kernel/api.js';

/** Ids are 26 Crockford base32 characters (K12); a cursor is the last id of the page before. */
const idField = z.string().regex(/^[0-9a-hjkmnp-tv-z]{26}$/, 'Not a job id');

export const jobListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: idField.optional().meta({ description: 'nextCursor of the page before' }),
  kind: z.string().min(1).max(100).optional(),
  state: z.enum(JOB_STATES).optional(),
  subject: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Only jobs naming this subject (a scheduled report's id for kind scheduled-reports.run)" }),
});
export type JobListQuery = z.output<typeof jobListQuery>;

export const enqueueBody = z.strictObject({
  kind: z.string().min(1).max(100),
  payload: z.unknown().optional().meta({ description: 'What the job works on, in the shape its kind declares; null when absent' }),
});

export const jobIdParams = z.object({ id: z.string().min(1).max(64) });
export const jobData = dataOf(z.strictObject({ job: jobSchema }));
export const jobListData = dataOf(z.strictObject({ jobs: z.array(jobSchema), nextCursor: z.string().nullable() }));
