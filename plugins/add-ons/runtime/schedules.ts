import { claimScheduledRun, type Json, type MetaDb } from '../../../kernel/api.js';
import { ADDON_SCHEDULE_OWNER, scheduleOwnerId, type AddonsDb } from '../tables.js';

/**
 * Bounds on add-ons' `schedule:` hooks (AO29): a schedule runs at most once a minimum interval
 * (a minute unless the operator sets SVC_ADDON_SCHEDULE_MIN_SECONDS), the jobs it
 * leaves are kept a week and at most JOBS_KEPT_PER_ADDON per add-on, and the result a job keeps
 * is at most RESULT_MAX_BYTES of JSON. (At most MAX_SCHEDULES hooks per add-on: the manifest.)
 */

export const SCHEDULE_JOB = 'add-ons.schedule';
export const JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const JOBS_KEPT_PER_ADDON = 100;
export const RESULT_MAX_BYTES = 4096;
export const SWEEP_EVERY_MS = 60 * 60 * 1000;
/**
 * Claims the run of a hook due at `dueAt` for this replica, or answers false when the
 * interval-long window it falls in is claimed already (by any replica). The claim is the
 * kernel's (`schedule_runs`, K49): one insert whose primary key admits one claim a window, no
 * read-then-insert for two replicas' timers to race through. The kernel's scheduler makes the
 * same claim in the job's own transaction; this is the claim alone.
 */
export function claimScheduleRun(db: AddonsDb, key: string, hook: string, dueAt: number, intervalMs: number): Promise<boolean> {
  return claimScheduledRun(db as unknown as MetaDb, ADDON_SCHEDULE_OWNER, scheduleOwnerId(key, hook), dueAt - (dueAt % intervalMs));
}

/** Whether a cron pattern would run more often than once `minIntervalMs` (two of its next runs closer). */
export async function runsMoreOftenThan(pattern: string, minIntervalMs: number): Promise<boolean> {
  const { Cron } = await import('croner');
  try {
    const runs = new Cron(pattern, { paused: true }).nextRuns(5);
    return runs.some((r, i) => i > 0 && r.getTime() - runs[i - 1]!.getTime() < minIntervalMs);
  } catch {
    return false;
  }
}

/** What a schedule job keeps of its hook's answer: the answer, or a note of its size when it is larger than RESULT_MAX_BYTES. */
export function keptResult(result: Json): Json {
  const bytes = Buffer.byteLength(JSON.stringify(result ?? null));
  return bytes > RESULT_MAX_BYTES ? { truncated: true, bytes } : result;
}

/**
 * Deletes finished schedule jobs older than JOB_RETENTION_MS, those of each add-on beyond its
 * newest JOBS_KEPT_PER_ADDON, and the run claims older than the retention. Queued and running
 * jobs are never touched. Answers how many job rows went.
 */
export async function sweepScheduleJobs(db: AddonsDb, keys: readonly string[], now: number): Promise<number> {
  const finished = ['succeeded', 'failed', 'cancelled'] as const;
  const old = await db
    .deleteFrom('jobs')
    .where('kind', '=', SCHEDULE_JOB)
    .where('state', 'in', finished)
    .where('finished_at', '<', now - JOB_RETENTION_MS)
    .executeTakeFirst();
  let deleted = Number(old.numDeletedRows);
  for (const key of keys) {
    // The payload is the job schema's JSON, `{"key":…` first; add-on keys hold no LIKE wildcard.
    for (;;) {
      const extra = await db
        .selectFrom('jobs')
        .select('id')
        .where('kind', '=', SCHEDULE_JOB)
        .where('state', 'in', finished)
        .where('payload', 'like', `{"key":"${key}",%`)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(JOBS_KEPT_PER_ADDON)
        .limit(500)
        .execute();
      if (!extra.length) break;
      const res = await db
        .deleteFrom('jobs')
        .where(
          'id',
          'in',
          extra.map((r) => r.id),
        )
        .executeTakeFirst();
      deleted += Number(res.numDeletedRows);
      if (extra.length < 500) break;
    }
  }
  await db
    .deleteFrom('schedule_runs')
    .where('owner_kind', '=', ADDON_SCHEDULE_OWNER)
    .where('due_at', '<', now - JOB_RETENTION_MS)
    .execute();
  return deleted;
}

/** "once a minute", "once every 5 seconds": the operator's minimum interval in words for a plan warning. */
export function intervalWords(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s % 3600 === 0) return s === 3600 ? 'once an hour' : `once every ${s / 3600} hours`;
  if (s % 60 === 0) return s === 60 ? 'once a minute' : `once every ${s / 60} minutes`;
  return s === 1 ? 'once a second' : `once every ${s} seconds`;
}
