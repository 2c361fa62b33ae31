import { AppError } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import { newId } from '../ids.js';
import type { Kernel } from '../kernel-services.js';
import type { Logger } from '../logger.js';
import type { Dialect, MetaDb } from '../meta/types.js';
import type { LoadedJobKind } from './kinds.js';
import { resolveJobOptions, type JobRunnerOptions, type ResolvedJobOptions } from './options.js';
import { checkPayload, rowToJob, subjectOf } from './rows.js';
import { JobRunner } from './runner.js';
import { Scheduler } from './schedules.js';
import { FINAL_STATES, JOB_FINISHED, JOB_PROGRESS, toJobView } from './schema.js';
import { JobStore } from './store.js';
import type { DeclaredJobKind, EnqueueOptions, Job, JobQueue } from './types.js';

export interface JobServiceDeps {
  db: MetaDb;
  /** The meta store's dialect, read at each claim: a relocation may change it (MR2). */
  dialect: Dialect | (() => Dialect);
  kinds: ReadonlyMap<string, LoadedJobKind>;
  bus: EventBus;
  log: Logger;
  now: () => number;
  /** The instance id: the lease holder this process writes. */
  owner: string;
  options?: JobRunnerOptions;
  kernelFor(plugin: string): Kernel;
}

/** `kernel.jobs`: enqueue, read, cancel, wait; the runner in this process does the work. */
export class JobService implements JobQueue {
  private readonly store: JobStore;
  private readonly runner: JobRunner;
  private readonly options: ResolvedJobOptions;
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly kinds: ReadonlyMap<string, DeclaredJobKind>;
  /** `kernel.schedules` (K49): timers that claim a due time and queue its job; they start and stop with the runner. */
  readonly schedules: Scheduler;

  constructor(private readonly deps: JobServiceDeps) {
    this.options = resolveJobOptions(deps.options);
    this.store = new JobStore(deps.db, deps.dialect);
    this.kinds = new Map([...deps.kinds].map(([kind, { declaration: _d, ...declared }]) => [kind, declared]));
    this.schedules = new Scheduler({ db: deps.db, jobs: this, log: deps.log.child({ component: 'schedules' }), now: deps.now });
    this.runner = new JobRunner({
      store: this.store,
      options: this.options,
      now: deps.now,
      log: deps.log.child({ component: 'jobs' }),
      owner: deps.owner,
      kinds: deps.kinds,
      kernelFor: deps.kernelFor,
      announce: (job) => this.announce(job),
      announceId: async (id) => {
        const job = await this.store.get(id);
        if (job) await this.announce(job);
      },
    });
  }

  /** After every plugin is set up: the workers start, and reap what a previous run left. */
  start(): void {
    this.runner.start();
    this.schedules.start();
  }

  stop(): Promise<void> {
    this.schedules.stop();
    return this.runner.stop();
  }

  declared(): ReadonlyMap<string, DeclaredJobKind> {
    return this.kinds;
  }

  async enqueue(kind: string, payload: unknown, opts: EnqueueOptions = {}): Promise<Job> {
    const loaded = this.deps.kinds.get(kind);
    if (!loaded) throw new Error(`job kind ${kind} is not declared by any loaded plugin`);
    const checked = checkPayload(loaded.declaration, payload);
    if (!checked.ok) throw new AppError('VALIDATION_FAILED', { issues: checked.issues.map((i) => ({ ...i, path: i.path ? `payload.${i.path}` : 'payload' })) });
    const maxAttempts = opts.maxAttempts ?? loaded.maxAttempts;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100) throw new Error(`maxAttempts must be 1..100, not ${maxAttempts}`);
    const now = this.deps.now();
    const row = {
      id: newId(now),
      kind,
      state: 'queued' as const,
      payload: checked.json,
      progress: null,
      progress_message: null,
      result: null,
      error_code: null,
      error_message: null,
      attempts: 0,
      max_attempts: maxAttempts,
      cancel_requested: 0,
      created_by: opts.createdBy ?? null,
      created_at: now,
      started_at: null,
      finished_at: null,
      run_after: now,
      locked_by: null,
      lease_until: null,
      updated_at: now,
      subject: subjectOf(loaded.declaration, checked.value),
    };
    // The job as enqueued: a runner may claim it the moment it is stored, so it is not read back.
    const job = rowToJob(row);
    const alongside = opts.alongside;
    if (alongside) {
      await this.deps.db.transaction().execute(async (trx) => {
        await this.store.insert(row, trx);
        await alongside(job, trx);
      });
    } else await this.store.insert(row);
    this.runner.wake();
    return job;
  }

  get(id: string): Promise<Job | null> {
    return this.store.get(id);
  }

  async cancel(id: string): Promise<Job | null> {
    const { marked, cancelledNow } = await this.store.requestCancel(id, this.deps.now());
    // Here at once; on another replica at its next lease renewal.
    if (marked && !cancelledNow) this.runner.local(id)?.stop('cancel');
    const job = await this.store.get(id);
    if (job && cancelledNow) await this.announce(job);
    return job;
  }

  async waitFor(id: string, timeoutMs = 30_000): Promise<Job> {
    // Real time, not `now`: tests freeze the clock the kernel stamps rows with.
    const deadline = Date.now() + timeoutMs;
    const pollMs = Math.max(25, Math.min(250, this.options.pollMs));
    for (;;) {
      const job = await this.store.get(id);
      if (!job) throw new Error(`job ${id} does not exist`);
      if (FINAL_STATES.has(job.state)) return job;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`job ${id} is still ${job.state} after ${timeoutMs} ms`);
      // A job that ends in this process wakes us at once; one that ends on a replica, at the next poll.
      await this.settledOrAfter(id, Math.min(left, pollMs));
    }
  }

  /** Publishes the change to the creator (decisions J1), then wakes local waiters. Never throws. */
  private async announce(job: Job): Promise<void> {
    const final = FINAL_STATES.has(job.state);
    try {
      await this.deps.bus.publish(final ? JOB_FINISHED : JOB_PROGRESS, { job: toJobView(job) }, { userIds: job.createdBy ? [job.createdBy] : [] });
    } catch (err) {
      this.deps.log.warn({ jobId: job.id, err: { message: (err as Error).message } }, 'job event not published');
    }
    if (!final) return;
    for (const wake of this.waiters.get(job.id) ?? []) wake();
  }

  private settledOrAfter(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set();
      this.waiters.set(id, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }
}
