import type { UpdateObject } from 'kysely';
import type { Logger } from '../logger.js';
import type { KernelTables } from '../meta/types.js';
import { JOB_LOST } from './errors.js';
import { Execution, type ExecutionEnv } from './execution.js';
import type { LoadedJobKind } from './kinds.js';
import type { JobRow } from './rows.js';
import type { JobStore } from './store.js';

export interface RunnerEnv extends ExecutionEnv {
  /** This process: the lease holder it writes into `locked_by`. */
  owner: string;
  kinds: ReadonlyMap<string, LoadedJobKind>;
  log: Logger;
  store: JobStore;
  announceId(id: string): Promise<void>;
}

const REAP_BATCH = 100;

/**
 * N workers in this process. Each polls for a due queued job of a kind this process knows,
 * claims it with a lease and runs it; between claims the process also reaps what dead holders
 * left behind (expired leases, interrupted cancellations).
 */
export class JobRunner {
  private readonly executions = new Map<string, Execution>();
  private readonly sleepers = new Set<() => void>();
  private readonly loops: Promise<void>[] = [];
  private stopping = false;
  private lastReap = 0;

  constructor(private readonly env: RunnerEnv) {}

  start(): void {
    if (this.env.kinds.size === 0) return;
    for (let i = 0; i < this.env.options.workers; i++) this.loops.push(this.work());
  }

  /** The attempt this process runs for the job, if any (a cancel aborts it at once). */
  local(id: string): Execution | undefined {
    return this.executions.get(id);
  }

  /** A job was enqueued here: one idle worker looks now instead of at its next poll. */
  wake(): void {
    const [sleeper] = this.sleepers;
    if (!sleeper) return;
    this.sleepers.delete(sleeper);
    sleeper();
  }

  /**
   * Aborts every running handler and waits for them to stop (they release their leases: the
   * jobs go back to the queue); after the grace period the leases are released anyway.
   */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
    for (const e of this.executions.values()) e.stop('shutdown');
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<false>((r) => (timer = setTimeout(() => r(false), this.env.options.shutdownGraceMs)));
    const stopped = await Promise.race([Promise.allSettled(this.loops).then(() => true as const), grace]);
    clearTimeout(timer);
    if (stopped) return;
    for (const e of this.executions.values()) {
      e.abandoned = true;
      this.env.log.warn({ jobId: e.claim.id }, 'job handler ignored its abort signal; lease released');
      await this.env.store.release(e.claim, this.env.now()).catch(() => false);
    }
  }

  /** Moves on what holders that are gone left behind: `running` never outlives its lease. */
  async reap(): Promise<void> {
    const { store, now, log } = this.env;
    const t = now();
    const { marked, expired } = await store.stranded(t, REAP_BATCH);
    for (const id of marked) if (await store.cancelMarkedQueued(id, t)) await this.env.announceId(id);
    for (const row of expired) {
      const patch = afterLostLease(row, t);
      if (!(await store.reap(row, patch, t))) continue;
      log.warn({ jobId: row.id, jobKind: row.kind, holder: row.locked_by, next: patch.state }, 'job lease expired: its holder stopped');
      await this.env.announceId(row.id);
    }
  }

  private async work(): Promise<void> {
    const { store, now, options, log, owner } = this.env;
    const kinds = [...this.env.kinds.keys()];
    while (!this.stopping) {
      let ran = false;
      try {
        await this.reapIfDue();
        if (this.stopping) break;
        const t = now();
        const row = await store.claim({ owner, kinds, now: t, leaseUntil: t + options.leaseMs });
        if (row) {
          ran = true;
          await this.execute(row);
        }
      } catch (err) {
        if (!this.stopping) log.warn({ err: { message: (err as Error).message } }, 'job worker could not claim or finish a job');
      }
      if (!ran && !this.stopping) await this.sleep(options.pollMs);
    }
  }

  private async execute(row: JobRow): Promise<void> {
    const exec = new Execution(this.env, row, this.env.kinds.get(row.kind)!);
    // Claimed while shutting down: hand it straight back.
    if (this.stopping) {
      await this.env.store.release(exec.claim, this.env.now());
      return;
    }
    this.executions.set(row.id, exec);
    try {
      await exec.run();
    } finally {
      this.executions.delete(row.id);
    }
  }

  /** Once per poll interval per process, whichever worker gets there first. */
  private async reapIfDue(): Promise<void> {
    const t = Date.now();
    if (t - this.lastReap < this.env.options.pollMs) return;
    this.lastReap = t;
    await this.reap();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }
}

/** A cancel that was asked for wins; then the attempt counts as spent. */
function afterLostLease(row: JobRow, now: number): UpdateObject<KernelTables, 'jobs'> {
  if (Number(row.cancel_requested)) return { state: 'cancelled', finished_at: now };
  if (Number(row.attempts) >= Number(row.max_attempts))
    return { state: 'failed', error_code: JOB_LOST.code, error_message: JOB_LOST.message, finished_at: now };
  return { state: 'queued', run_after: now, error_code: JOB_LOST.code, error_message: JOB_LOST.message };
}
