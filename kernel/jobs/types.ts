import type { z } from 'zod';
import type { Kernel } from '../kernel-services.js';
import type { Logger } from '../logger.js';
import type { MetaDb } from '../meta/types.js';

/** D13. The state machine is written down in docs/decisions.md (J1. Jobs). */
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

export interface Job {
  id: string;
  kind: string;
  state: JobState;
  /** What the job was asked to do (JSON). */
  payload: unknown;
  /** 0..1 when the total is known, else null. */
  progress: number | null;
  progressMessage: string | null;
  /** What a succeeded job produced (JSON), e.g. an export's file id. */
  result: unknown;
  error: { code: string; message: string } | null;
  attempts: number;
  maxAttempts: number;
  createdBy: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  cancelRequested: boolean;
  /** What the job works on, as its kind names it (`JobDeclaration.subject`); null when it names nothing. */
  subject: string | null;
}

export interface JobContext<P = unknown> {
  job: Job;
  payload: P;
  /** Aborted when someone cancels the job or the process shuts down; stop soon and throw. */
  signal: AbortSignal;
  /** Reports progress (persisted, and published as a `job.progress` event); throttled by the runner. */
  progress(done: number, total: number | null, message?: string): Promise<void>;
  log: Logger;
  /** The declaring plugin's kernel view (its services, and the plugins it requires). */
  kernel: Kernel;
}

/** A plugin's job kind (manifest `jobs`). */
export interface JobDeclaration<P = unknown> {
  /** Who may see and cancel jobs of this kind (besides the user who created them). */
  permission: string;
  description?: string;
  /** Attempts before the job fails for good (retries with backoff); default 3. */
  maxAttempts?: number;
  /** The payload's shape: enqueue and POST /jobs refuse anything else (400 at body.payload…). */
  schema?: z.ZodType<P>;
  /**
   * Names what a job of this kind works on (a report's id), at most 200 characters, stored beside
   * the job so `GET /jobs?kind=…&subject=…` lists one thing's runs. It is shown to whoever may
   * see the job, so it must be an identifier the kind's permission already reveals, never a
   * value of the payload that is private to its creator (J1 keeps the payload out of the API).
   */
  subject?(payload: P): string | null;
  handler(ctx: JobContext<P>): Promise<unknown>;
}

/** A job kind as the kernel loaded it from a manifest. */
export interface DeclaredJobKind {
  plugin: string;
  permission: string;
  description: string | null;
  maxAttempts: number;
}

export interface EnqueueOptions {
  createdBy?: string | null;
  maxAttempts?: number;
  /**
   * The caller's own rows that name the job (an export's `job_id`), written in the meta-store
   * transaction that stores the job: no worker, of any replica, can claim the job before they
   * are committed (J2). Throwing rolls the job back with them.
   */
  alongside?: (job: Job, trx: MetaDb) => Promise<void>;
}

/** The kernel's job service (`kernel.jobs`). */
export interface JobQueue {
  enqueue(kind: string, payload: unknown, opts?: EnqueueOptions): Promise<Job>;
  get(id: string): Promise<Job | null>;
  /** Asks a queued or running job to stop; a queued one is cancelled at once. */
  cancel(id: string): Promise<Job | null>;
  /** Resolves when the job reaches a final state (tests, synchronous callers); rejects after `timeoutMs`. */
  waitFor(id: string, timeoutMs?: number): Promise<Job>;
  /** Every job kind the loaded plugins declare, by kind. */
  declared(): ReadonlyMap<string, DeclaredJobKind>;
}
