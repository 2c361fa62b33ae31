import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../ids.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { activeUser, bootWithAdmin, openEvents, type SseStream } from '../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { FAST_JOBS, jobTestPlugin, type JobRecord } from '../../test/jobs/job-plugin.js';
import type { Job } from './types.js';

const available = { sqlite: true, postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql') };

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const meta of ['sqlite', 'postgres', 'mysql'] as const) {
  describe.runIf(available[meta])(`the job runner (${meta} meta store)`, () => {
    const record: JobRecord = { runs: [] };
    let inst: TestInstance;
    let admin: HttpClient;
    let adminId: string;
    let events: SseStream;
    const jobs = () => inst.app.kernel.jobs;
    const running = (id: string) => until(async () => ((await jobs().get(id))?.state === 'running' ? true : null), `job ${id} running`);
    const eventsOf = (id: string) => events.events.filter((e) => e.data?.job?.id === id);

    beforeAll(async () => {
      ({ inst, admin, adminId } = await bootWithAdmin({ meta, plugins: [jobTestPlugin(record)], jobs: FAST_JOBS }));
      events = await openEvents(inst, admin);
    });
    afterAll(async () => {
      events?.close();
      await inst?.close();
    });

    it('runs a job to its stored result, publishing throttled progress to its creator over SSE', async () => {
      const editor = await activeUser(inst, admin, `editor-${meta}@example.com`, ['editor']);
      const bystander = await openEvents(inst, editor.client);
      try {
        const res = await admin.post('/api/v1/jobs', { kind: 'jobtest.count', payload: { n: 4, delayMs: 120 } });
        expect(res.status, res.text).toBe(201);
        const id: string = res.body.data.job.id;
        const moving = await events.waitFor((e) => e.kind === 'job.progress' && e.data.job.id === id && e.data.job.progress > 0 && e.data.job.progress < 1);
        expect(moving.data.job).toMatchObject({ state: 'running', attempts: 1, createdBy: adminId });
        expect(moving.data.job).not.toHaveProperty('payload');
        const finished = await events.waitFor((e) => e.kind === 'job.finished' && e.data.job.id === id);
        expect(finished.data.job).toMatchObject({ state: 'succeeded', progress: 1, progressMessage: 'counted 4', result: { counted: 4 }, error: null });

        const job = await jobs().waitFor(id, 5000);
        expect(job).toMatchObject({
          state: 'succeeded',
          progress: 1,
          result: { counted: 4 },
          attempts: 1,
          payload: { n: 4, delayMs: 120 },
          cancelRequested: false,
        });
        expect(job.startedAt).toBeGreaterThanOrEqual(job.createdAt);
        expect(job.finishedAt).toBeGreaterThanOrEqual(job.startedAt!);
        const progress = eventsOf(id)
          .filter((e) => e.kind === 'job.progress')
          .map((e) => e.data.job.progress);
        // The first event says it started; then progress only grows.
        expect(progress[0]).toBeNull();
        expect(progress.slice(1)).toEqual([...progress.slice(1)].sort());
        expect(progress.length).toBeGreaterThanOrEqual(3);
        // The audience is the creator: a user holding the kind's permission gets nothing (decisions J1).
        await new Promise((r) => setTimeout(r, 100));
        expect(bystander.events.filter((e) => e.data?.job?.id === id)).toEqual([]);
      } finally {
        bystander.close();
      }
    });

    it('writes progress at most once per throttle window and keeps the last report', async () => {
      const job = await jobs().enqueue('jobtest.count', { n: 300 }, { createdBy: adminId });
      const done = await jobs().waitFor(job.id, 5000);
      expect(done).toMatchObject({ state: 'succeeded', progress: 1, progressMessage: 'counted 300' });
      await events.waitFor((e) => e.kind === 'job.finished' && e.data.job.id === job.id);
      // One write per 50 ms window at most (plus the "started" event), however fast the handler reports.
      const writes = eventsOf(job.id).filter((e) => e.kind === 'job.progress' && e.data.job.progress !== null).length;
      expect(writes).toBeLessThanOrEqual(Math.ceil((done.finishedAt! - done.startedAt!) / FAST_JOBS.progressThrottleMs) + 1);
      expect(writes).toBeLessThan(100);
    });

    it('cancels a queued job at once and aborts a running one', async () => {
      const first = await jobs().enqueue('jobtest.wait', null, { createdBy: adminId });
      const second = await jobs().enqueue('jobtest.wait', null, { createdBy: adminId });
      await running(first.id);
      await running(second.id);
      const queued = await jobs().enqueue('jobtest.wait', null, { createdBy: adminId });
      await new Promise((r) => setTimeout(r, 150)); // both workers busy: it stays queued
      expect((await jobs().get(queued.id))!.state).toBe('queued');

      const cancelled = await jobs().cancel(queued.id);
      expect(cancelled).toMatchObject({ state: 'cancelled', cancelRequested: true, attempts: 0 });
      expect(cancelled!.finishedAt).not.toBeNull();
      await events.waitFor((e) => e.kind === 'job.finished' && e.data.job.id === queued.id && e.data.job.state === 'cancelled');

      const asked = await jobs().cancel(first.id);
      expect(asked).toMatchObject({ cancelRequested: true });
      expect(['running', 'cancelled']).toContain(asked!.state);
      expect(await jobs().waitFor(first.id, 5000)).toMatchObject({ state: 'cancelled', error: null, attempts: 1 });
      await jobs().cancel(second.id);
      expect((await jobs().waitFor(second.id, 5000)).state).toBe('cancelled');
      expect(record.runs.filter((r) => r.id === queued.id)).toEqual([]);
      // Cancelling a finished job changes nothing.
      expect(await jobs().cancel(queued.id)).toEqual(cancelled);
    });

    it('retries a failing job with exponential backoff, then succeeds', async () => {
      const job = await jobs().enqueue('jobtest.flaky', { failures: 2 }, { createdBy: adminId });
      const done = await jobs().waitFor(job.id, 10_000);
      expect(done).toMatchObject({ state: 'succeeded', attempts: 3, maxAttempts: 5, result: { attempt: 3 }, error: null });
      const starts = record.runs.filter((r) => r.id === job.id).map((r) => r.at);
      expect(starts).toHaveLength(3);
      // backoffBaseMs 100: 200 ms after the first attempt, 400 ms after the second.
      expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(195);
      expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(395);
      const requeued = eventsOf(job.id).find((e) => e.kind === 'job.progress' && e.data.job.state === 'queued');
      expect(requeued?.data.job).toMatchObject({ attempts: 1, error: { code: 'TEST_FLAKY', message: 'Attempt 1 fails on purpose.' } });
    });

    it('fails for good after maxAttempts, with a code and a message that hide the cause', async () => {
      const raw = await jobs().enqueue('jobtest.fail', { mode: 'raw' }, { createdBy: adminId });
      const failed = await jobs().waitFor(raw.id, 10_000);
      expect(failed).toMatchObject({ state: 'failed', attempts: 2, maxAttempts: 2, error: { code: 'JOB_FAILED', message: 'The job failed.' }, result: null });
      expect(failed.finishedAt).not.toBeNull();
      const shown = await admin.get(`/api/v1/jobs/${raw.id}`);
      expect(shown.text).not.toMatch(/secret_table|\/srv\/|insert into/);

      const coded = await jobs().waitFor((await jobs().enqueue('jobtest.fail', { mode: 'coded' }, { maxAttempts: 1 })).id, 5000);
      expect(coded).toMatchObject({ state: 'failed', attempts: 1, maxAttempts: 1, error: { code: 'TEST_BROKEN', message: 'Always broken.' }, createdBy: null });
      // A JobError that says retrying cannot help ends the job on its first attempt.
      const fatal = await jobs().waitFor((await jobs().enqueue('jobtest.fail', { mode: 'fatal' })).id, 5000);
      expect(fatal).toMatchObject({ state: 'failed', attempts: 1, maxAttempts: 2, error: { code: 'TEST_FATAL' } });
    });

    it('refuses an undeclared kind and a payload its kind does not accept', async () => {
      await expect(jobs().enqueue('jobtest.nope', {})).rejects.toThrow(/not declared/);
      await expect(jobs().enqueue('jobtest.count', { n: 0 })).rejects.toMatchObject({
        code: 'VALIDATION_FAILED',
        issues: [expect.objectContaining({ path: 'payload.n' })],
      });
      await expect(jobs().enqueue('jobtest.quick', { big: 'x'.repeat(70_000) })).rejects.toMatchObject({
        issues: [expect.objectContaining({ path: 'payload', code: 'too_big' })],
      });
      expect([...jobs().declared().keys()]).toEqual(expect.arrayContaining(['jobtest.count', 'jobtest.wait']));
      expect(jobs().declared().get('jobtest.flaky')).toEqual({ plugin: 'jobtest', permission: 'jobtest.run', description: null, maxAttempts: 5 });
    });

    it('moves jobs whose holder died on: requeued, failed when out of attempts, cancelled when asked', async () => {
      const db = inst.app.kernel.db;
      const past = Date.now() - 60_000;
      const orphan = (attempts: number, maxAttempts: number, cancel: number, payload: unknown) => ({
        id: newId(past),
        kind: 'jobtest.count',
        state: 'running' as const,
        payload: JSON.stringify(payload),
        progress: 0.5,
        progress_message: 'half way',
        result: null,
        error_code: null,
        error_message: null,
        attempts,
        max_attempts: maxAttempts,
        cancel_requested: cancel,
        created_by: adminId,
        created_at: past,
        started_at: past,
        finished_at: null,
        run_after: past,
        locked_by: 'a-process-that-died',
        lease_until: past + 30_000,
        updated_at: past,
      });
      const again = orphan(1, 3, 0, { n: 2 });
      const spent = orphan(3, 3, 0, { n: 2 });
      const asked = orphan(1, 3, 1, { n: 2 });
      await db.insertInto('jobs').values([again, spent, asked]).execute();
      expect(await jobs().waitFor(again.id, 5000)).toMatchObject({ state: 'succeeded', attempts: 2, result: { counted: 2 }, error: null });
      expect(await jobs().waitFor(spent.id, 5000)).toMatchObject({
        state: 'failed',
        attempts: 3,
        error: { code: 'JOB_LOST', message: 'The process running this job stopped before the job finished.' },
      });
      expect(await jobs().waitFor(asked.id, 5000)).toMatchObject({ state: 'cancelled', attempts: 1 });
      const left = await db.selectFrom('jobs').select('id').where('state', '=', 'running').where('locked_by', '=', 'a-process-that-died').execute();
      expect(left).toEqual([]);
    });

    it('waitFor rejects after its timeout, and for an unknown job', async () => {
      const job = await jobs().enqueue('jobtest.wait', null);
      await expect(jobs().waitFor(job.id, 200)).rejects.toThrow(/still (queued|running) after 200 ms/);
      await jobs().cancel(job.id);
      await expect(jobs().waitFor(newId(), 200)).rejects.toThrow(/does not exist/);
    });
  });

  describe.runIf(available[meta])(`a graceful shutdown (${meta} meta store)`, () => {
    let observer: TestInstance;
    afterAll(async () => {
      await observer?.close();
    });

    it('aborts running handlers and hands their jobs back to the queue, the attempt uncounted', async () => {
      const env = { SVC_SECRET: 's'.repeat(40) };
      // The observer runs nothing; the worker shares its store and is shut down mid-job.
      observer = await startInstance({ meta, env, plugins: [jobTestPlugin()], jobs: { ...FAST_JOBS, workers: 0 } });
      const record: JobRecord = { runs: [] };
      const worker = await startInstance({
        metaUrl: observer.metaUrl ?? undefined,
        env: { ...env, ...(observer.metaUrl ? {} : { SVC_DATA_DIR: observer.dataDir }) },
        plugins: [jobTestPlugin(record)],
        jobs: FAST_JOBS,
      });
      const job = await worker.app.kernel.jobs.enqueue('jobtest.wait', null);
      await until(async () => (await observer.app.kernel.jobs.get(job.id))?.state === 'running', 'the job to run');
      // The claim marks it running a moment before the handler is called: wait for the handler.
      await until(async () => record.runs.length > 0, 'its handler to start');
      await worker.close();
      const after = (await observer.app.kernel.jobs.get(job.id)) as Job;
      expect(after).toMatchObject({ state: 'queued', attempts: 0, finishedAt: null });
      const row = await observer.app.kernel.db.selectFrom('jobs').select(['locked_by', 'lease_until']).where('id', '=', job.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ locked_by: null, lease_until: null });
      expect(record.runs.map((r) => r.id)).toEqual([job.id]);
    });
  });
}
