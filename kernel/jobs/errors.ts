import { AppError } from '../errors.js';
import { isStorageFull } from '../storage-full.js';

const CODE = /^[A-Z][A-Z0-9_]{1,99}$/;

/**
 * Thrown by a handler to fail with a code and a message meant for the people watching the job.
 * Anything else a handler throws is stored as JOB_FAILED with a generic message, so a stack,
 * an SQL statement or a file path never reaches the API.
 */
export class JobError extends Error {
  override name = 'JobError';
  constructor(
    readonly code: string,
    message: string,
    /** false: retrying cannot help (bad input); the job fails at once. */
    readonly retryable = true,
  ) {
    super(message);
    if (!CODE.test(code)) throw new Error(`job error codes look like SOME_CODE, not ${code}`);
  }
}

export interface StoredJobError {
  code: string;
  message: string;
  retryable: boolean;
}

export const JOB_FAILED = { code: 'JOB_FAILED', message: 'The job failed.' };
export const JOB_STORAGE_FULL = { code: 'STORAGE_FULL', message: 'The storage this job writes to is full. Free some space and run it again.' };
export const JOB_LOST = { code: 'JOB_LOST', message: 'The process running this job stopped before the job finished.' };

export function toStoredError(err: unknown): StoredJobError {
  if (err instanceof JobError) return { code: err.code, message: err.message.slice(0, 1000), retryable: err.retryable };
  // AppError messages come from the code registry (or were written for users), never from a
  // driver; a refusal (4xx) will refuse again, an outage (5xx) may pass.
  if (err instanceof AppError) return { code: err.code, message: err.message.slice(0, 1000), retryable: err.status >= 500 };
  // A full disk is worth saying (decisions K44): the operator can act on it, and a retry may pass once there is room.
  if (isStorageFull(err)) return { ...JOB_STORAGE_FULL, retryable: true };
  return { ...JOB_FAILED, retryable: true };
}
