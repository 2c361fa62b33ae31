import type { UpdateObject } from 'kysely';
import type { Dialect, KernelTables, MetaDb } from '../meta/types.js';
import { claimers } from './dialects/index.js';
import type { ClaimRequest } from './dialects/types.js';
import type { ProgressValue } from './progress.js';
import { rowToJob, type JobRow } from './rows.js';
import type { Job } from './types.js';

/** One claim of one job: the lease holder and the attempt it started. */
export interface Claim {
  id: string;
  owner: string;
  attempts: number;
}

type Patch = UpdateObject<KernelTables, 'jobs'>;

const RELEASED = { locked_by: null, lease_until: null } as const;

/**
 * The jobs table. Every write a worker makes is fenced on its claim (holder, attempt, still
 * running): once a lease expired and a replica took the job over, or reaped it, the old
 * worker's late writes change nothing.
 */
export class JobStore {
  private readonly dialect: () => Dialect;

  constructor(
    readonly db: MetaDb,
    dialect: Dialect | (() => Dialect),
  ) {
    this.dialect = typeof dialect === 'function' ? dialect : () => dialect;
  }

  async insert(row: JobRow, db: MetaDb = this.db): Promise<void> {
    await db.insertInto('jobs').values(row).execute();
  }

  async get(id: string): Promise<Job | null> {
    const row = await this.db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? rowToJob(row) : null;
  }

  claim(req: ClaimRequest): Promise<JobRow | null> {
    return claimers[this.dialect()](this.db, req);
  }

  /** Extends the lease; says whether the claim still holds and whether someone asked to cancel. */
  async renew(c: Claim, now: number, leaseUntil: number): Promise<{ held: boolean; cancelRequested: boolean }> {
    if (!(await this.fenced(c, { lease_until: leaseUntil, updated_at: now }))) return { held: false, cancelRequested: false };
    const row = await this.db.selectFrom('jobs').select('cancel_requested').where('id', '=', c.id).executeTakeFirst();
    return { held: true, cancelRequested: Boolean(Number(row?.cancel_requested ?? 0)) };
  }

  progress(c: Claim, progress: number | null, message: string | null, now: number): Promise<boolean> {
    return this.fenced(c, { progress, progress_message: message, updated_at: now });
  }

  // The final writes carry the last reported progress: a report held back by the throttle is not lost.

  /** A job that knew its total ends at 1. */
  succeed(c: Claim, result: string, last: ProgressValue, now: number): Promise<boolean> {
    const progress = last.progress === null ? null : 1;
    return this.fenced(c, {
      ...RELEASED,
      ...written({ ...last, progress }),
      state: 'succeeded',
      result,
      error_code: null,
      error_message: null,
      finished_at: now,
      updated_at: now,
    });
  }

  fail(c: Claim, error: { code: string; message: string }, last: ProgressValue, now: number): Promise<boolean> {
    return this.fenced(c, {
      ...RELEASED,
      ...written(last),
      state: 'failed',
      error_code: error.code,
      error_message: error.message,
      finished_at: now,
      updated_at: now,
    });
  }

  cancelled(c: Claim, last: ProgressValue, now: number): Promise<boolean> {
    return this.fenced(c, { ...RELEASED, ...written(last), state: 'cancelled', finished_at: now, updated_at: now });
  }

  /** Back to the queue for another attempt, keeping the last error for the people watching. */
  retry(c: Claim, error: { code: string; message: string }, last: ProgressValue, runAfter: number, now: number): Promise<boolean> {
    return this.fenced(c, {
      ...RELEASED,
      ...written(last),
      state: 'queued',
      run_after: runAfter,
      error_code: error.code,
      error_message: error.message,
      updated_at: now,
    });
  }

  /** Shutdown: back to the queue at once, and the interrupted attempt does not count. */
  release(c: Claim, now: number): Promise<boolean> {
    return this.fenced(c, { ...RELEASED, state: 'queued', run_after: now, attempts: Math.max(0, c.attempts - 1), updated_at: now });
  }

  /** Marks a queued or running job; a queued one is then cancelled at once. True when the job reached `cancelled` here. */
  async requestCancel(id: string, now: number): Promise<{ marked: boolean; cancelledNow: boolean }> {
    const marked = await this.db
      .updateTable('jobs')
      .set({ cancel_requested: 1, updated_at: now })
      .where('id', '=', id)
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirst();
    // A running job that fails between the two writes goes back to `queued` marked: claims skip
    // marked jobs, and this write (or the next reap) ends it.
    const cancelled = await this.cancelMarkedQueued(id, now);
    return { marked: Number(marked.numUpdatedRows) > 0, cancelledNow: cancelled };
  }

  async cancelMarkedQueued(id: string, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ ...RELEASED, state: 'cancelled', finished_at: now, updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'queued')
      .where('cancel_requested', '=', 1)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Queued jobs whose cancellation was interrupted, and running jobs whose lease ran out. */
  async stranded(now: number, limit: number): Promise<{ marked: string[]; expired: JobRow[] }> {
    const [marked, expired] = await Promise.all([
      this.db.selectFrom('jobs').select('id').where('state', '=', 'queued').where('cancel_requested', '=', 1).limit(limit).execute(),
      this.db.selectFrom('jobs').selectAll().where('state', '=', 'running').where('lease_until', '<', now).limit(limit).execute(),
    ]);
    return { marked: marked.map((r) => r.id), expired };
  }

  /** Moves a job whose holder is gone on, fenced on the lease that was read as expired. */
  async reap(row: JobRow, patch: Patch, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set({ ...RELEASED, ...patch, updated_at: now })
      .where('id', '=', row.id)
      .where('state', '=', 'running')
      .where('attempts', '=', row.attempts)
      .where('lease_until', '<', now)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  private async fenced(c: Claim, patch: Patch): Promise<boolean> {
    const res = await this.db
      .updateTable('jobs')
      .set(patch)
      .where('id', '=', c.id)
      .where('locked_by', '=', c.owner)
      .where('attempts', '=', c.attempts)
      .where('state', '=', 'running')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }
}

const written = (v: ProgressValue) => ({ progress: v.progress, progress_message: v.message });
