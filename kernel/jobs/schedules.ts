import type { Cron } from 'croner';
import type { Logger } from '../logger.js';
import type { MetaDb } from '../meta/types.js';
import type { Job, JobQueue } from './types.js';

/**
 * The kernel's scheduler (decisions K49): plugins register schedule sources; each listed item
 * (a cron pattern in a time zone) gets a croner timer in every replica, and when it fires the
 * replica claims the due time with one insert into `schedule_runs` (primary key: owner kind,
 * owner id, due time) in the same transaction that queues the item's job. Only one replica's
 * insert commits, so each due time runs once however many replicas share the meta store, and a
 * claim never exists without its job (nor a job without its claim).
 *
 * The timers start with the job runner and follow the sources: at once when a source calls
 * `reload()` after a change, and every RELOAD_MS on every replica (the AO7 rule), so a change made
 * on another replica is picked up within seconds.
 */

export const RELOAD_MS = 5000;
/** Claims older than this are swept (their jobs keep their own retention). */
export const CLAIM_RETENTION_MS = 7 * 24 * 3600_000;

/** One scheduled thing a source lists. */
export interface ScheduledItem {
  /** Unique within its source: the claim's owner id (≤ 200 characters). */
  id: string;
  /** croner pattern: 5 fields, or 6 with seconds where the source allows them. */
  cron: string;
  /** IANA time zone the pattern is read in. */
  timeZone: string;
  /**
   * A claim covers the window of this many ms its due time falls in (`due - due % windowMs`):
   * two due times within one window run once (add-ons' minimum interval, AO29). Default: each
   * due time (to the second) is its own claim.
   */
  windowMs?: number;
  /** croner's `interval` (seconds): the timer itself fires at most this often. */
  minIntervalSeconds?: number;
}

/** What a claimed due time queues. */
export interface ScheduledJob {
  kind: string;
  payload: unknown;
  maxAttempts?: number;
  /** Whose job it is (its creator sees it in GET /jobs); default none. */
  createdBy?: string | null;
}

/** A plugin's schedules (registered with `kernel.schedules.register`). */
export interface ScheduleSource {
  /** The claim's owner kind, e.g. 'addon', 'report' (≤ 40 characters; unique among sources). */
  kind: string;
  /** Every item that should run now; called on each reload. */
  list(): Promise<ScheduledItem[]> | ScheduledItem[];
  /** The job of a claimed due time; null: nothing to run (the item went meanwhile). */
  job(item: ScheduledItem, dueAt: number): ScheduledJob | null | Promise<ScheduledJob | null>;
}

/** `kernel.schedules`. */
export interface Schedules {
  /** Adds a source (replacing one of the same kind) and reloads; answers a function that removes it. */
  register(source: ScheduleSource): () => void;
  /** Reads every source again and sets the timers to what they list (call after a change). */
  reload(): Promise<void>;
  /**
   * What a timer does when an item falls due: claims the due time and queues the job, answering
   * the job, or null when another replica (or an earlier call) claimed it already.
   */
  fire(kind: string, item: ScheduledItem, dueAt: number): Promise<Job | null>;
  /** The next `count` run times of a pattern in a zone after `from`; throws on a pattern croner refuses. */
  nextRuns(cron: string, timeZone: string, count: number, from?: Date): Promise<Date[]>;
}

export interface SchedulerDeps {
  db: MetaDb;
  jobs: Pick<JobQueue, 'enqueue'>;
  log: Logger;
  now: () => number;
}

interface Timer {
  signature: string;
  cron: Cron;
}

const signatureOf = (kind: string, i: ScheduledItem) => JSON.stringify([kind, i.id, i.cron, i.timeZone, i.windowMs ?? 0, i.minIntervalSeconds ?? 0]);

/** Claims `dueAt` (already window-aligned) for the owner; false when it is claimed already. Used alone by tests and the add-ons' claim helper. */
export async function claimScheduledRun(
  db: MetaDb,
  ownerKind: string,
  ownerId: string,
  dueAt: number,
  now = Date.now(),
  jobId: string | null = null,
): Promise<boolean> {
  try {
    await db.insertInto('schedule_runs').values({ owner_kind: ownerKind, owner_id: ownerId, due_at: dueAt, job_id: jobId, claimed_at: now }).execute();
    return true;
  } catch {
    return false;
  }
}

export class Scheduler implements Schedules {
  private readonly sources = new Map<string, ScheduleSource>();
  private timers = new Map<string, Timer>();
  private poller: NodeJS.Timeout | null = null;
  private started = false;
  private closed = false;
  private generation = 0;
  private lastSweep = 0;

  constructor(private readonly deps: SchedulerDeps) {}

  register(source: ScheduleSource): () => void {
    this.sources.set(source.kind, source);
    if (this.started) void this.reload();
    return () => {
      if (this.sources.get(source.kind) === source) this.sources.delete(source.kind);
      if (this.started) void this.reload();
    };
  }

  /** With the job runner: the first reading of every source, then one every RELOAD_MS. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    void this.reload();
    this.poller = setInterval(() => void this.reload(), RELOAD_MS);
    this.poller.unref();
  }

  stop(): void {
    this.closed = true;
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    for (const t of this.timers.values()) t.cron.stop();
    this.timers.clear();
  }

  async reload(): Promise<void> {
    if (!this.started || this.closed) return;
    const generation = ++this.generation;
    const wanted = new Map<string, { kind: string; item: ScheduledItem }>();
    for (const source of [...this.sources.values()]) {
      try {
        for (const item of await source.list()) wanted.set(signatureOf(source.kind, item), { kind: source.kind, item });
      } catch (err) {
        // A source that cannot be read now keeps its timers until it can.
        this.deps.log.warn({ source: source.kind, err: { message: (err as Error).message } }, 'a schedule source cannot be read');
        for (const [sig, t] of this.timers) if (JSON.parse(sig)[0] === source.kind) wanted.set(sig, { kind: source.kind, item: itemOf(sig, t) });
      }
    }
    // A later reload started meanwhile: its reading wins.
    if (generation !== this.generation || this.closed) return;
    for (const [sig, t] of this.timers) {
      if (!wanted.has(sig)) {
        t.cron.stop();
        this.timers.delete(sig);
      }
    }
    const missing = [...wanted].filter(([sig]) => !this.timers.has(sig));
    if (missing.length) {
      // croner loads only once something is scheduled.
      const { Cron } = await import('croner');
      if (generation !== this.generation || this.closed) return;
      for (const [sig, { kind, item }] of missing) {
        try {
          const cron = new Cron(
            item.cron,
            { timezone: item.timeZone, protect: true, ...(item.minIntervalSeconds ? { interval: item.minIntervalSeconds } : {}) },
            (self: Cron) => {
              const due = self.currentRun()?.getTime() ?? this.deps.now();
              void this.fire(kind, item, Math.floor(due / 1000) * 1000).catch((err: Error) =>
                this.deps.log.warn({ source: kind, item: item.id, err: { message: err.message } }, 'a scheduled run could not be queued'),
              );
            },
          );
          this.timers.set(sig, { signature: sig, cron });
        } catch (err) {
          this.deps.log.warn({ source: kind, item: item.id, cron: item.cron, err: { message: (err as Error).message } }, 'a schedule cannot be read');
        }
      }
    }
    await this.sweep();
  }

  async fire(kind: string, item: ScheduledItem, dueAt: number): Promise<Job | null> {
    const source = this.sources.get(kind);
    if (!source) return null;
    const claimAt = item.windowMs ? dueAt - (dueAt % item.windowMs) : dueAt;
    const spec = await source.job(item, dueAt);
    if (!spec) return null;
    const now = this.deps.now();
    try {
      // The claim in the job's own transaction: the losing replica's insert rolls its job back.
      return await this.deps.jobs.enqueue(spec.kind, spec.payload, {
        ...(spec.maxAttempts ? { maxAttempts: spec.maxAttempts } : {}),
        ...(spec.createdBy ? { createdBy: spec.createdBy } : {}),
        alongside: async (job, trx) => {
          await trx.insertInto('schedule_runs').values({ owner_kind: kind, owner_id: item.id, due_at: claimAt, job_id: job.id, claimed_at: now }).execute();
        },
      });
    } catch (err) {
      const claimed = await this.deps.db
        .selectFrom('schedule_runs')
        .select('job_id')
        .where('owner_kind', '=', kind)
        .where('owner_id', '=', item.id)
        .where('due_at', '=', claimAt)
        .executeTakeFirst();
      if (claimed) return null;
      throw err;
    }
  }

  async nextRuns(cron: string, timeZone: string, count: number, from?: Date): Promise<Date[]> {
    const { Cron } = await import('croner');
    return new Cron(cron, { timezone: timeZone, paused: true }).nextRuns(count, from ?? new Date(this.deps.now()));
  }

  /** Drops claims past their retention, at most once an hour per replica (deletes are idempotent). */
  private async sweep(): Promise<void> {
    const now = this.deps.now();
    if (now - this.lastSweep < 3600_000) return;
    this.lastSweep = now;
    await this.deps.db
      .deleteFrom('schedule_runs')
      .where('due_at', '<', now - CLAIM_RETENTION_MS)
      .execute()
      .catch((err: Error) => this.deps.log.warn({ err: { message: err.message } }, 'could not sweep old schedule claims'));
  }
}

function itemOf(sig: string, _t: Timer): ScheduledItem {
  const [, id, cron, timeZone, windowMs, minIntervalSeconds] = JSON.parse(sig) as [string, string, string, string, number, number];
  return { id, cron, timeZone, ...(windowMs ? { windowMs } : {}), ...(minIntervalSeconds ? { minIntervalSeconds } : {}) };
}
