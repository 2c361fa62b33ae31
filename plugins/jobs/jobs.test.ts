import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../kernel/ids.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { addApiKey, addUser, bootWithAdmin, issuePaths } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { FAST_JOBS, jobTestPlugin } from '../../test/jobs/job-plugin.js';

const available = { sqlite: true, postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql') };
const JOB_KEYS = [
  'attempts',
  'cancelRequested',
  'createdAt',
  'createdBy',
  'error',
  'finishedAt',
  'id',
  'kind',
  'maxAttempts',
  'progress',
  'progressMessage',
  'result',
  'startedAt',
  'state',
  'subject',
];

for (const meta of ['sqlite', 'postgres', 'mysql'] as const) {
  describe.runIf(available[meta])(`/jobs (${meta} meta store)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let editor: { client: HttpClient; userId: string };
    let viewer: { client: HttpClient; userId: string };
    const post = (who: HttpClient, body: unknown) => call(inst, who, 'POST', '/api/v1/jobs', body);
    const get = (who: HttpClient, path = '') => call(inst, who, 'GET', `/api/v1/jobs${path}`);
    const cancel = (who: HttpClient, id: string) => call(inst, who, 'POST', `/api/v1/jobs/${id}/cancel`);
    const ids = (res: { body: any }): string[] => res.body.data.jobs.map((j: { id: string }) => j.id);

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin({ meta, plugins: [jobTestPlugin()], jobs: FAST_JOBS }));
      editor = await addUser(inst, { role: 'editor', email: `editor-${meta}@example.com` });
      viewer = await addUser(inst, { role: 'viewer', email: `viewer-${meta}@example.com` });
    });
    afterAll(async () => {
      await inst?.close();
    });

    it('enqueue a job and follow it to its result, in the declared shape', async () => {
      const res = await post(editor.client, { kind: 'jobtest.count', payload: { n: 2 } });
      expect(res.status, res.text).toBe(201);
      const job = res.body.data.job;
      expect(Object.keys(job).sort()).toEqual(JOB_KEYS);
      expect(job).toMatchObject({
        kind: 'jobtest.count',
        state: 'queued',
        attempts: 0,
        maxAttempts: 3,
        createdBy: editor.userId,
        cancelRequested: false,
        result: null,
        error: null,
      });
      await inst.app.kernel.jobs.waitFor(job.id, 5000);
      const shown = await get(editor.client, `/${job.id}`);
      expect(shown.status).toBe(200);
      expect(shown.body.data.job).toMatchObject({
        id: job.id,
        state: 'succeeded',
        progress: 1,
        result: { counted: 2 },
        startedAt: expect.any(Number),
        finishedAt: expect.any(Number),
      });
      const [entry] = (await inst.app.kernel.db
        .selectFrom('audit_log')
        .select(['action', 'target_id'])
        .where('action', '=', 'jobs.enqueue')
        .where('target_id', '=', job.id)
        .execute()) as Array<{ action: string }>;
      expect(entry).toBeDefined();
    });

    it('refuse an unknown kind, a bad payload, and a kind whose permission the caller lacks', async () => {
      for (const [body, path] of [
        [{ kind: 'jobtest.nope' }, 'body.kind'],
        [{ payload: {} }, 'body.kind'],
        [{ kind: 'jobtest.count', payload: { n: 'three' } }, 'body.payload.n'],
        [{ kind: 'jobtest.count' }, 'body.payload'],
        [{ kind: 'jobtest.quick', payload: 'x'.repeat(70_000) }, 'body.payload'],
        [{ kind: 'jobtest.quick', extra: 1 }, 'body'],
      ] as const) {
        const res = await post(admin, body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
        expect(issuePaths(res)).toContain(path);
      }
      const refused = await post(viewer.client, { kind: 'jobtest.count', payload: { n: 1 } });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'jobtest.run' } });
      expect((await post(editor.client, { kind: 'jobtest.secret' })).body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'jobtest.admin' } });
      expect((await call(inst, inst.client(), 'GET', '/api/v1/jobs')).status).toBe(401);
    });

    it("show a caller its own jobs and those of kinds it holds the permission of; others' answer 404", async () => {
      const secret = (await post(admin, { kind: 'jobtest.secret' })).body.data.job;
      const editors = (await post(editor.client, { kind: 'jobtest.quick' })).body.data.job;
      // Enqueued for the viewer by the system (another plugin acting on the viewer's request).
      const viewers = await inst.app.kernel.jobs.enqueue('jobtest.secret', null, { createdBy: viewer.userId });
      await Promise.all([secret.id, editors.id, viewers.id].map((id) => inst.app.kernel.jobs.waitFor(id, 5000)));

      const sees = async (who: HttpClient) => new Set(ids(await get(who, '?limit=500')));
      const adminSees = await sees(admin);
      expect([secret.id, editors.id, viewers.id].every((id) => adminSees.has(id))).toBe(true);
      const editorSees = await sees(editor.client);
      expect(editorSees.has(editors.id)).toBe(true);
      expect(editorSees.has(secret.id) || editorSees.has(viewers.id)).toBe(false);
      expect(await sees(viewer.client)).toEqual(new Set([viewers.id]));

      for (const [who, id] of [
        [editor.client, secret.id],
        [editor.client, viewers.id],
        [viewer.client, editors.id],
        [viewer.client, secret.id],
      ] as const) {
        const one = await get(who, `/${id}`);
        expect(one.status).toBe(404);
        expect(one.body.error.code).toBe('NOT_FOUND');
        expect((await cancel(who, id)).status).toBe(404);
      }
      expect((await get(viewer.client, `/${viewers.id}`)).body.data.job.createdBy).toBe(viewer.userId);
      expect((await get(admin, `/${newId()}`)).status).toBe(404);

      // A key has no user: it sees the kinds its role holds, and nothing as a creator.
      const viewerKey = await addApiKey(inst, 'viewer');
      expect((await call(inst, inst.client(), 'GET', '/api/v1/jobs', undefined, viewerKey)).body.data.jobs).toEqual([]);
      const adminKey = await addApiKey(inst, 'admin');
      expect((await call(inst, inst.client(), 'GET', `/api/v1/jobs/${viewers.id}`, undefined, adminKey)).status).toBe(200);
    });

    it('list newest first with a keyset cursor, filtered by kind and state', async () => {
      const made: string[] = [];
      for (let i = 0; i < 5; i++) made.push((await post(editor.client, { kind: 'jobtest.count', payload: { n: 1 } })).body.data.job.id);
      await Promise.all(made.map((id) => inst.app.kernel.jobs.waitFor(id, 5000)));
      const failed = (await post(editor.client, { kind: 'jobtest.fail', payload: { mode: 'fatal' } })).body.data.job.id;
      await inst.app.kernel.jobs.waitFor(failed, 5000);

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await get(editor.client, `?kind=jobtest.count&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...ids(res));
        cursor = res.body.data.nextCursor;
        pages++;
      } while (cursor);
      const counts = ids(await get(editor.client, '?kind=jobtest.count&limit=500'));
      expect(seen).toEqual(counts);
      expect(counts.slice(0, 5)).toEqual([...made].reverse());
      expect(pages).toBe(Math.ceil(counts.length / 2));
      expect(ids(await get(editor.client, '?state=failed'))).toEqual([failed]);
      expect(ids(await get(editor.client, '?state=failed&kind=jobtest.count'))).toEqual([]);
      for (const [query, path] of [
        ['?state=done', 'query.state'],
        ['?cursor=zzz', 'query.cursor'],
        ['?limit=0', 'query.limit'],
        ['?limit=501', 'query.limit'],
        ['?kind=', 'query.kind'],
      ]) {
        const res = await get(editor.client, query);
        expect(res.status, query).toBe(400);
        expect(issuePaths(res)).toContain(path);
      }
    });

    it('list the jobs that name one subject (J3), the subject shown to who may see the job', async () => {
      const tags = ['report-a', 'report-b', 'report-a', 'x'.repeat(201)];
      const made: string[] = [];
      for (const tag of tags) made.push((await post(editor.client, { kind: 'jobtest.count', payload: { n: 1, tag } })).body.data.job.id);
      const one = await get(editor.client, '?kind=jobtest.count&subject=report-a');
      expect(one.status).toBe(200);
      expect(ids(one)).toEqual([made[2], made[0]]);
      expect(one.body.data.jobs.map((j: { subject: string }) => j.subject)).toEqual(['report-a', 'report-a']);
      expect(ids(await get(editor.client, '?subject=report-b'))).toEqual([made[1]]);
      expect((await get(editor.client, `/${made[3]}`)).body.data.job.subject).toBeNull();
      // A viewer without the kind's permission sees none of them, filtered or not.
      expect(ids(await get(viewer.client, '?subject=report-a'))).toEqual([]);
      for (const query of ['?subject=', `?subject=${'y'.repeat(201)}`]) {
        const res = await get(editor.client, query);
        expect(res.status, query).toBe(400);
        expect(issuePaths(res)).toContain('query.subject');
      }
    });

    it('cancel a queued and a running job, answer a cancelled one unchanged and a finished one 409', async () => {
      const busy = [];
      for (let i = 0; i < 2; i++) busy.push((await post(editor.client, { kind: 'jobtest.wait' })).body.data.job.id);
      for (const id of busy) {
        for (let i = 0; i < 250 && (await inst.app.kernel.jobs.get(id))?.state !== 'running'; i++) await new Promise((r) => setTimeout(r, 20));
      }
      const queued = (await post(editor.client, { kind: 'jobtest.wait' })).body.data.job.id;
      const res = await cancel(editor.client, queued);
      expect(res.status).toBe(200);
      expect(res.body.data.job).toMatchObject({ id: queued, state: 'cancelled', cancelRequested: true, attempts: 0 });

      const stopping = await cancel(editor.client, busy[0]);
      expect(stopping.status).toBe(200);
      expect(stopping.body.data.job).toMatchObject({ cancelRequested: true });
      expect((await inst.app.kernel.jobs.waitFor(busy[0], 5000)).state).toBe('cancelled');
      // An admin holds the kind's permission: it may cancel the editor's job.
      expect((await cancel(admin, busy[1])).status).toBe(200);
      expect((await inst.app.kernel.jobs.waitFor(busy[1], 5000)).state).toBe('cancelled');

      const again = await cancel(editor.client, queued);
      expect(again.status).toBe(200);
      expect(again.body.data.job).toEqual(res.body.data.job);
      const done = (await post(editor.client, { kind: 'jobtest.quick' })).body.data.job.id;
      await inst.app.kernel.jobs.waitFor(done, 5000);
      const late = await cancel(editor.client, done);
      expect(late.status).toBe(409);
      expect(late.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'job-finished', state: 'succeeded' } });
      expect((await call(inst, editor.client, 'POST', `/api/v1/jobs/${done}/cancel`, { now: true })).status).toBe(400);
    });
  });
}
