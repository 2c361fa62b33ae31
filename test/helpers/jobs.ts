/** Playing a job's holders by hand: the tests that show what a holder which stalled past its lease can still do. */
import type { Job, JobContext } from '../../kernel/jobs/types.js';
import type { Kernel } from '../../kernel/kernel-services.js';
import type { MetaDb } from '../../kernel/meta/types.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import type { ServiceRef } from '../../kernel/plugin/service-ref.js';
import { recordingLogger } from '../meta/support.js';

/** A plugin's service (and so its kernel view, the one its job handlers get), handed to the test. */
export function serviceProbe<T>(ref: ServiceRef<T>) {
  const held: { service: T | null } = { service: null };
  const plugin = definePlugin({
    name: `${ref.plugin}-service-probe`,
    version: '1.0.0',
    requires: [ref.plugin],
    setup: (kernel) => {
      held.service = kernel.plugin(ref);
    },
  });
  return { plugin, held };
}

/** What a worker's claim writes: the job running as `attempts`, held by `holder` until `leaseUntil`. */
export async function claimAs(db: MetaDb, jobId: string, attempts: number, holder: string, leaseUntil = Date.now() + 600_000): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ state: 'running', attempts, locked_by: holder, lease_until: leaseUntil, started_at: Date.now() })
    .where('id', '=', jobId)
    .execute();
}

/** The context the runner gives a handler for one attempt, run by `kernel` (whose instanceId is the holder). */
export function attemptContext<P>(
  job: Job,
  attempts: number,
  payload: P,
  kernel: Kernel,
  progress: JobContext<P>['progress'] = async () => undefined,
): JobContext<P> {
  return { job: { ...job, state: 'running', attempts }, payload, signal: new AbortController().signal, progress, log: recordingLogger(), kernel };
}

/** Holds whoever waits on it until `open()`; `entered` says whether anyone got there. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const g = {
    entered: false,
    open,
    async wait(): Promise<void> {
      g.entered = true;
      await opened;
    },
    /** Until someone waits here (or about 20 s passed). */
    async reached(): Promise<boolean> {
      for (let i = 0; i < 2000 && !g.entered; i++) await new Promise((r) => setTimeout(r, 10));
      return g.entered;
    },
  };
  return g;
}
