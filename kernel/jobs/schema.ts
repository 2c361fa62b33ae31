import { z } from 'zod';
import type { Job } from './types.js';

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export const FINAL_STATES: ReadonlySet<string> = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * A job as the API and the events show it. The payload stays out (decisions J1): it may carry
 * filter values or references that a holder of the kind's permission, who is not the creator,
 * should not read.
 */
export const jobSchema = z
  .strictObject({
    id: z.string(),
    kind: z.string(),
    state: z.enum(JOB_STATES),
    progress: z.number().min(0).max(1).nullable().meta({ description: '0..1 when the job knows its total, else null' }),
    progressMessage: z.string().nullable(),
    result: z.unknown().meta({ description: 'What a succeeded job produced (JSON), else null' }),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable().meta({ description: 'Why the last attempt failed' }),
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    createdBy: z.string().nullable(),
    createdAt: z.number(),
    startedAt: z.number().nullable(),
    finishedAt: z.number().nullable(),
    cancelRequested: z.boolean(),
    subject: z.string().nullable().meta({ description: "What the job works on, as its kind names it (a scheduled report's id), else null" }),
  })
  .meta({ id: 'Job' });
export type JobView = z.infer<typeof jobSchema>;

export function toJobView(job: Job): JobView {
  const { payload: _payload, ...view } = job;
  return view;
}

/** Every change of a job that is not final: started, progress, queued again for a retry. */
export const JOB_PROGRESS = 'job.progress';
/** The job reached succeeded, failed or cancelled. */
export const JOB_FINISHED = 'job.finished';
export const jobEventSchema = z.strictObject({ job: jobSchema });
