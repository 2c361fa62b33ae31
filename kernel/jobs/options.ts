/** How this process runs jobs (AppOptions.jobs); tests shorten the times. */
export interface JobRunnerOptions {
  /** Jobs this process runs at once; 0 runs none (it still enqueues and cancels). Default 2. */
  workers?: number;
  /** How often an idle worker looks for work and expired leases. Default 1 s. */
  pollMs?: number;
  /** How long a claim holds without renewal; renewed every third of it. Default 30 s. */
  leaseMs?: number;
  /** At most one progress write (and event) per job per this many ms. Default 250. */
  progressThrottleMs?: number;
  /** A retry waits base·2^attempts ms, at most backoffMaxMs. Defaults 1 s and 5 min. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** At shutdown, how long aborted handlers get to stop before their leases are released anyway. Default 10 s. */
  shutdownGraceMs?: number;
}

export type ResolvedJobOptions = Required<JobRunnerOptions>;

export const JOB_DEFAULTS: ResolvedJobOptions = {
  workers: 2,
  pollMs: 1000,
  leaseMs: 30_000,
  progressThrottleMs: 250,
  backoffBaseMs: 1000,
  backoffMaxMs: 300_000,
  shutdownGraceMs: 10_000,
};

export function resolveJobOptions(opts: JobRunnerOptions = {}): ResolvedJobOptions {
  const out = { ...JOB_DEFAULTS };
  for (const [key, value] of Object.entries(opts) as Array<[keyof ResolvedJobOptions, number | undefined]>) {
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 0) throw new Error(`jobs.${key} must be a whole number ≥ 0, not ${value}`);
    out[key] = value;
  }
  if (out.leaseMs < 300) throw new Error('jobs.leaseMs must be at least 300 ms');
  return out;
}

/** The wait before the next attempt, after `attempts` attempts (1 → 2·base). */
export function backoffMs(attempts: number, o: ResolvedJobOptions): number {
  return Math.min(o.backoffBaseMs * 2 ** Math.min(attempts, 30), o.backoffMaxMs);
}

/** Renewing three times per lease leaves two renewals of slack before a replica may take the job. */
export const renewEveryMs = (o: ResolvedJobOptions): number => Math.max(100, Math.floor(o.leaseMs / 3));
