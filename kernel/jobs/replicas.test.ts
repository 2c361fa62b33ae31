import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin, openEvents, sessionFor } from '../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { FAST_JOBS, jobTestPlugin, type JobRecord } from '../../test/jobs/job-plugin.js';

const available = { postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql') };
// One secret: a session cookie signed by one replica is good on the others.
const env = { SVC_SECRET: 'replica-secret-'.padEnd(40, 'x') };

for (const meta of ['postgres', 'mysql'] as const) {
  describe.runIf(available[meta])(`replicas sharing one ${meta} meta store`, () => {
    const record: JobRecord = { runs: [] };
    let a: TestInstance;
    let b: TestInstance;
    let adminId: string;

    beforeAll(async () => {
      ({ inst: a, adminId } = await bootWithAdmin({ meta, env, plugins: [jobTestPlugin(record)], jobs: FAST_JOBS }));
      b = await startInstance({ metaUrl: a.metaUrl!, env, plugins: [jobTestPlugin(record)], jobs: FAST_JOBS });
    });
    afterAll(async () => {
      // b first: a drops the temp database.
      await b?.close();
      await a?.close();
    });

    it('claim each job exactly once', async () => {
      const ids = await Promise.all(Array.from({ length: 50 }, () => a.app.kernel.jobs.enqueue('jobtest.quick', null)).map((p) => p.then((j) => j.id)));
      const done = await Promise.all(ids.map((id) => a.app.kernel.jobs.waitFor(id, 20_000)));
      expect(done.every((j) => j.state === 'succeeded' && j.attempts === 1)).toBe(true);
      const runs = record.runs.filter((r) => ids.includes(r.id));
      expect(runs).toHaveLength(50);
      expect(new Set(runs.map((r) => r.id)).size).toBe(50);
      // Both replicas took part.
      expect(new Set(runs.map((r) => r.instance))).toEqual(new Set([a.app.kernel.instanceId, b.app.kernel.instanceId]));
    });

    it('cancel a job running on the other replica at its next lease renewal', async () => {
      const job = await a.app.kernel.jobs.enqueue('jobtest.wait', null, { createdBy: adminId });
      let holder: string | undefined;
      for (let i = 0; i < 250 && !holder; i++) {
        holder = record.runs.find((r) => r.id === job.id)?.instance;
        if (!holder) await new Promise((r) => setTimeout(r, 20));
      }
      expect(holder).toBeDefined();
      const other = holder === a.app.kernel.instanceId ? b : a;
      const started = Date.now();
      const asked = await other.app.kernel.jobs.cancel(job.id);
      expect(asked).toMatchObject({ state: 'running', cancelRequested: true });
      expect(await other.app.kernel.jobs.waitFor(job.id, 5000)).toMatchObject({ state: 'cancelled', attempts: 1 });
      // Renewal runs every leaseMs / 3 = 1 s.
      expect(Date.now() - started).toBeLessThan(3000);
    });

    if (meta === 'postgres') {
      it("deliver a job's progress events to its creator on another replica", async () => {
        const watcher = await startInstance({ metaUrl: a.metaUrl!, env, plugins: [jobTestPlugin(record)], jobs: { ...FAST_JOBS, workers: 0 } });
        try {
          const stream = await openEvents(watcher, await sessionFor(watcher, adminId));
          const job = await watcher.app.kernel.jobs.enqueue('jobtest.count', { n: 3, delayMs: 100 }, { createdBy: adminId });
          await stream.waitFor((e) => e.kind === 'job.progress' && e.data.job.id === job.id && e.data.job.progress > 0);
          const finished = await stream.waitFor((e) => e.kind === 'job.finished' && e.data.job.id === job.id);
          expect(finished.data.job).toMatchObject({ state: 'succeeded', result: { counted: 3 } });
          expect(record.runs.find((r) => r.id === job.id)?.instance).not.toBe(watcher.app.kernel.instanceId);
          stream.close();
        } finally {
          await watcher.close();
        }
      });
    }
  });
}
