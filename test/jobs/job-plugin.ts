/**
 * Job kinds for the job runner's tests (kernel/jobs, plugins/jobs, and the child process the
 * kill test starts). Each run is recorded in `record.runs`; instances in one process that share
 * a record count runs across replicas.
 */
import { z } from 'zod';
import { JobError } from '../../kernel/jobs/errors.js';
import type { JobDeclaration } from '../../kernel/jobs/types.js';
import { definePlugin, type PluginDefinition } from '../../kernel/plugin/manifest.js';

export interface JobRun {
  id: string;
  kind: string;
  attempt: number;
  instance: string;
  at: number;
}

export interface JobRecord {
  runs: JobRun[];
}

export const RUN = 'jobtest.run';

/** Times short enough for tests: poll 50 ms, lease 3 s (renewed every second), backoff 100 ms·2^n. */
export const FAST_JOBS = { workers: 2, pollMs: 50, leaseMs: 3000, progressThrottleMs: 50, backoffBaseMs: 100, backoffMaxMs: 2000, shutdownGraceMs: 2000 };
export const ADMIN_ONLY = 'jobtest.admin';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function kind<P>(decl: JobDeclaration<P>): JobDeclaration {
  return decl as JobDeclaration;
}

export function jobTestPlugin(record: JobRecord = { runs: [] }): PluginDefinition {
  const track =
    <P>(handler: JobDeclaration<P>['handler']): JobDeclaration<P>['handler'] =>
    async (ctx) => {
      record.runs.push({ id: ctx.job.id, kind: ctx.job.kind, attempt: ctx.job.attempts, instance: ctx.kernel.instanceId, at: Date.now() });
      return handler(ctx);
    };
  const waitForAbort = track<unknown>(({ signal }) => sleep(2 ** 31 - 1, signal));
  return definePlugin({
    name: 'jobtest',
    version: '1.0.0',
    permissions: [
      { name: RUN, label: 'Run test jobs', description: 'Test job kinds.', roles: ['editor'] },
      { name: ADMIN_ONLY, label: 'Run secret test jobs', description: 'Admins only.' },
    ],
    jobs: {
      // Counts to n, reporting progress after each step.
      'jobtest.count': kind({
        permission: RUN,
        schema: z.strictObject({
          n: z.number().int().min(1).max(10_000),
          delayMs: z.number().int().min(0).max(10_000).default(0),
          tag: z.string().max(300).optional(),
        }),
        // Names its job by the tag (J3); a tag over 200 characters names nothing.
        subject: (payload) => payload.tag ?? null,
        handler: track(async ({ payload, progress, signal }) => {
          for (let i = 1; i <= payload.n; i++) {
            await sleep(payload.delayMs, signal);
            await progress(i, payload.n, `counted ${i}`);
          }
          return { counted: payload.n };
        }),
      }),
      // Fails its first `failures` attempts, then succeeds.
      'jobtest.flaky': kind({
        permission: RUN,
        maxAttempts: 5,
        schema: z.strictObject({ failures: z.number().int().min(0) }),
        handler: track(async ({ job, payload }) => {
          if (job.attempts <= payload.failures) throw new JobError('TEST_FLAKY', `Attempt ${job.attempts} fails on purpose.`);
          return { attempt: job.attempts };
        }),
      }),
      // Runs until its signal fires.
      'jobtest.wait': kind({ permission: RUN, handler: waitForAbort }),
      // Always fails: `raw` with an error whose message must never reach the API.
      'jobtest.fail': kind({
        permission: RUN,
        maxAttempts: 2,
        schema: z.strictObject({ mode: z.enum(['raw', 'coded', 'fatal']) }),
        handler: track(async ({ payload }) => {
          if (payload.mode === 'coded') throw new JobError('TEST_BROKEN', 'Always broken.');
          if (payload.mode === 'fatal') throw new JobError('TEST_FATAL', 'Retrying cannot help.', false);
          throw new Error('insert into secret_table values ($1) failed at /srv/app/kernel/x.ts:10');
        }),
      }),
      'jobtest.quick': kind({ permission: RUN, handler: track(async ({ signal }) => sleep(15, signal).then(() => ({ ok: true }))) }),
      'jobtest.secret': kind({ permission: ADMIN_ONLY, handler: track(async ({ signal }) => sleep(15, signal).then(() => ({ ok: true }))) }),
    },
  });
}
