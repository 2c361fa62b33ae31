import { expressionBuilder, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { KernelTables, MetaDb } from '../meta/types.js';
import type { JobContext } from './types.js';

/**
 * One attempt of a job as its handler knows it: the job, the attempt it runs (`job.attempts`
 * when it was claimed) and the holder (the instance running it, whose id the claim wrote into
 * `locked_by`).
 */
export interface Attempt {
  jobId: string;
  attempt: number;
  holder: string;
}

export const attemptOf = (ctx: Pick<JobContext, 'job' | 'kernel'>): Attempt => ({
  jobId: ctx.job.id,
  attempt: ctx.job.attempts,
  holder: ctx.kernel.instanceId,
});

/** Same attempt, same holder, still running, lease not run out (as `now` reads the clock). */
const holding = (eb: ExpressionBuilder<KernelTables, 'jobs'>, a: Attempt, now: number) =>
  eb.and([
    eb('jobs.id', '=', a.jobId),
    eb('jobs.attempts', '=', a.attempt),
    eb('jobs.locked_by', '=', a.holder),
    eb('jobs.state', '=', 'running'),
    eb('jobs.lease_until', '>=', now),
  ]);

/**
 * A condition for a handler's own meta-store writes (EX7, IM9): the write holds only while this
 * attempt still has the job. A holder that stalled past its lease, and resumed after a replica
 * took the job over or the reaper moved it on, then changes nothing: the runner fences its own
 * writes on the claim (J1), and this fences the plugin's rows the same way, in the same statement.
 */
export function attemptHolds(a: Attempt, now: number): Expression<SqlBool> {
  const eb = expressionBuilder<KernelTables, never>();
  return eb.exists(
    eb
      .selectFrom('jobs')
      .select('jobs.id')
      .where((j) => holding(j, a, now)),
  );
}

/** Whether the attempt still has the job now: for a write outside the meta store, checked just before it is committed. */
export async function stillHolds(db: MetaDb, a: Attempt, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('jobs')
    .select('jobs.id')
    .where((j) => holding(j, a, now))
    .executeTakeFirst();
  return row !== undefined;
}
