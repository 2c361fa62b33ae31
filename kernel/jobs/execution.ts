import type { Kernel } from '../kernel-services.js';
import type { Logger } from '../logger.js';
import { JOB_FAILED, JobError, toStoredError } from './errors.js';
import type { LoadedJobKind } from './kinds.js';
import { backoffMs, renewEveryMs, type ResolvedJobOptions } from './options.js';
import { ProgressThrottle, type ProgressValue } from './progress.js';
import { encodeJson, rowToJob, type JobRow } from './rows.js';
import type { Claim, JobStore } from './store.js';
import type { Job } from './types.js';

export type StopReason = 'cancel' | 'shutdown' | 'lease-lost';

export interface ExecutionEnv {
  store: JobStore;
  options: ResolvedJobOptions;
  now(): number;
  log: Logger;
  kernelFor(plugin: string): Kernel;
  /** Publishes the job's new state and wakes local waiters; never throws. */
  announce(job: Job): Promise<void>;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/** One attempt of one claimed job: the handler, its lease renewal, its progress, its final write. */
export class Execution {
  readonly claim: Claim;
  /** Set when shutdown released the lease itself: whatever the handler does later is dropped. */
  abandoned = false;
  private readonly controller = new AbortController();
  private reason: StopReason | null = null;
  private job: Job;
  private readonly log: Logger;

  constructor(
    private readonly env: ExecutionEnv,
    row: JobRow,
    private readonly kind: LoadedJobKind,
  ) {
    this.job = rowToJob(row);
    this.claim = { id: row.id, owner: row.locked_by!, attempts: Number(row.attempts) };
    this.log = env.log.child({ jobId: row.id, jobKind: row.kind, attempt: this.claim.attempts });
  }

  /** Fires the handler's signal; the first reason wins. */
  stop(reason: StopReason): void {
    if (this.reason) return;
    this.reason = reason;
    const abort = new Error(`job stopped: ${reason}`);
    abort.name = 'AbortError';
    this.controller.abort(abort);
  }

  async run(): Promise<void> {
    await this.env.announce(this.job);
    const renewal = this.renewLease();
    const progress = new ProgressThrottle(this.env.options.progressThrottleMs, (v) => this.writeProgress(v.progress, v.message), {
      progress: null,
      message: null,
    });
    let outcome: Outcome;
    try {
      const value = await this.kind.declaration.handler({
        job: { ...this.job },
        payload: this.job.payload,
        signal: this.controller.signal,
        progress: (done, total, message) => progress.report(done, total, message),
        log: this.log,
        kernel: this.env.kernelFor(this.kind.plugin),
      });
      outcome = { ok: true, value };
    } catch (err) {
      outcome = { ok: false, err };
    } finally {
      clearInterval(renewal);
      progress.close();
    }
    await this.finish(outcome, progress.current);
  }

  private renewLease(): NodeJS.Timeout {
    const { store, options, now } = this.env;
    let lastHeld = Date.now();
    let busy = false;
    return setInterval(() => {
      if (busy || this.reason) return;
      // Past its lease a replica may already run the job: stop rather than run it twice.
      if (Date.now() - lastHeld > options.leaseMs) return this.stop('lease-lost');
      busy = true;
      const t = now();
      store
        .renew(this.claim, t, t + options.leaseMs)
        .then((r) => {
          if (!r.held) return this.stop('lease-lost');
          lastHeld = Date.now();
          if (r.cancelRequested) this.stop('cancel');
        })
        .catch((err: Error) => this.log.warn({ err: { message: err.message } }, 'job lease not renewed'))
        .finally(() => (busy = false));
    }, renewEveryMs(options));
  }

  private async writeProgress(progress: number | null, message: string | null): Promise<void> {
    try {
      if (!(await this.env.store.progress(this.claim, progress, message, this.env.now()))) return this.stop('lease-lost');
      this.job = { ...this.job, progress, progressMessage: message };
      await this.env.announce(this.job);
    } catch (err) {
      this.log.warn({ err: { message: (err as Error).message } }, 'job progress not stored');
    }
  }

  private async finish(outcome: Outcome, last: ProgressValue): Promise<void> {
    const { store, now } = this.env;
    const c = this.claim;
    if (this.abandoned) return;
    if (this.reason === 'lease-lost') return this.log.warn('job lease lost; this attempt is dropped');
    // Stopped by shutdown: back to the queue, unless the handler finished its work anyway.
    if (this.reason === 'shutdown' && !outcome.ok) {
      await store.release(c, now());
      return;
    }
    let wrote = false;
    if (outcome.ok) {
      const json = encodeJson(outcome.value);
      if (json !== null) wrote = await store.succeed(c, json, last, now());
      else
        outcome = {
          ok: false,
          err: new JobError('JOB_RESULT_INVALID', 'The job produced a result that cannot be stored (not JSON, or over 60 000 bytes).', false),
        };
    }
    if (!outcome.ok) {
      const cancel = this.reason === 'cancel' || (await store.get(c.id))?.cancelRequested === true;
      if (cancel) wrote = await store.cancelled(c, last, now());
      else {
        const error = toStoredError(outcome.err);
        // Only the log sees what really went wrong; the job shows the generic JOB_FAILED.
        if (error.code === JOB_FAILED.code) this.log.warn({ err: describe(outcome.err) }, 'job attempt failed');
        const t = now();
        wrote =
          error.retryable && c.attempts < this.job.maxAttempts
            ? await store.retry(c, error, last, t + backoffMs(c.attempts, this.env.options), t)
            : await store.fail(c, error, last, t);
      }
    }
    if (!wrote) return this.log.warn('job was taken over before this attempt ended; its outcome is dropped');
    const job = await store.get(c.id);
    if (job) await this.env.announce(job);
  }
}

function describe(err: unknown): { message: string; stack?: string } {
  return err instanceof Error ? { message: err.message, stack: err.stack } : { message: String(err) };
}
