import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAddonManifest, type AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { addonsDb } from '../tables.js';
import { claimScheduleRun, JOB_RETENTION_MS, JOBS_KEPT_PER_ADDON, RESULT_MAX_BYTES, SCHEDULE_JOB, sweepScheduleJobs } from './schedules.js';
import { packFixture, uploadPackage } from '../testing.js';

const manifest = (key: string, hooks: string[]): AddonManifestInput => ({
  key,
  name: key,
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['kv'],
  hooks,
  actions: ['runs'],
});

const SERVER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({
  hooks: {
    'schedule:* * * * * *': async (ctx) => { await ctx.kv.set('runs', ((await ctx.kv.get('runs')) ?? 0) + 1); },
    'schedule:0 0 1 1 *': async () => 'x'.repeat(50000),
  },
  actions: { runs: async (ctx) => (await ctx.kv.get('runs')) ?? 0 },
});
`;

/** The sweep on a real meta store: rows of every case inserted as the job queue writes them. */
async function checkSweep(inst: TestInstance): Promise<void> {
  const db = addonsDb(inst.app.kernel.db);
  const now = Date.now();
  const row = (id: string, key: string, at: number, state: 'succeeded' | 'running' = 'succeeded', kind = SCHEDULE_JOB) => ({
    id,
    kind,
    state,
    payload: JSON.stringify({ key, hook: 'schedule:0 * * * *', dueAt: at }),
    progress: null,
    progress_message: null,
    result: JSON.stringify('r'.repeat(100)),
    error_code: null,
    error_message: null,
    attempts: 1,
    max_attempts: 1,
    cancel_requested: 0,
    created_by: null,
    created_at: at,
    started_at: at,
    finished_at: state === 'running' ? null : at,
    run_after: at,
    locked_by: null,
    lease_until: null,
    updated_at: at,
    subject: null,
  });
  const rows = [
    // 150 recent runs of one add-on: the newest hundred stay.
    ...Array.from({ length: 150 }, (_, i) => row(`sweep-many-${String(i).padStart(3, '0')}`, 'many', now - (150 - i) * 60_000)),
    // Old runs of another: gone; one still running: kept.
    ...Array.from({ length: 5 }, (_, i) => row(`sweep-old-${i}`, 'old', now - JOB_RETENTION_MS - (i + 1) * 60_000)),
    row('sweep-old-running', 'old', now - JOB_RETENTION_MS - 60_000, 'running'),
    // Another kind's old job is not the add-ons' to delete.
    row('sweep-other-kind', 'old', now - JOB_RETENTION_MS - 60_000, 'succeeded', 'exports.run'),
  ];
  for (let i = 0; i < rows.length; i += 50)
    await db
      .insertInto('jobs')
      .values(rows.slice(i, i + 50))
      .execute();
  await db
    .insertInto('schedule_runs')
    .values({ owner_kind: 'addon', owner_id: 'old:schedule:0 * * * *', due_at: now - JOB_RETENTION_MS - 60_000, job_id: null, claimed_at: now })
    .execute();

  const deleted = await sweepScheduleJobs(db, ['many', 'old', 'ticker'], now);
  expect(deleted).toBe(55);
  const left = await db.selectFrom('jobs').select('id').where('id', 'like', 'sweep-%').orderBy('id').execute();
  const ids = left.map((r) => r.id);
  expect(ids.filter((id) => id.startsWith('sweep-many-'))).toHaveLength(JOBS_KEPT_PER_ADDON);
  expect(ids).toContain('sweep-many-149');
  expect(ids).not.toContain('sweep-many-049');
  expect(ids).toContain('sweep-old-running');
  expect(ids).toContain('sweep-other-kind');
  expect(ids.filter((id) => /^sweep-old-\d$/.test(id))).toEqual([]);
  expect(await db.selectFrom('schedule_runs').select('due_at').where('owner_kind', '=', 'addon').where('owner_id', 'like', 'old:%').execute()).toEqual([]);
}

describe.each(['postgres', 'mysql'] as const)('the schedule jobs sweep on a %s meta store', (meta) => {
  let inst: TestInstance;
  beforeAll(async () => {
    ({ inst } = await bootWithAdmin({ meta }));
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
  });
  it('deletes what is past its retention and nothing else', () => checkSweep(inst));
});

describe('schedules: at most once a minute, bounded results, jobs kept a week and a hundred per add-on (AO29)', () => {
  let inst: TestInstance;
  let admin: HttpClient;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin());
    const pkg = await packFixture(manifest('ticker', ['schedule:* * * * * *', 'schedule:0 0 1 1 *']), SERVER);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = await admin.get('/api/v1/add-ons/ticker/plan?version=1.0.0');
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.data.plan.warnings).toContain('schedule:* * * * * * would run more often than once a minute: it runs at most once a minute.');
    expect(plan.body.data.plan.warnings.some((w: string) => w.startsWith('schedule:0 0 1 1 *'))).toBe(false);
    const res = await admin.post('/api/v1/add-ons', { key: 'ticker', version: '1.0.0', planHash: plan.body.data.plan.hash });
    expect(res.status, res.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
  });

  const jobsOf = async (hook: string) =>
    (await addonsDb(inst.app.kernel.db).selectFrom('jobs').select(['id', 'payload']).where('kind', '=', SCHEDULE_JOB).execute()).filter(
      (j) => JSON.parse(j.payload).hook === hook,
    );

  it('runs a schedule written with seconds at most once a minute', async () => {
    const runs = async () => (await admin.post('/api/v1/public/apps/ticker/actions/runs', { input: null })).body.data?.result as number;
    const deadline = Date.now() + 20_000;
    while ((await runs()) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await runs()).toBe(1);
    // Every second for five more seconds, without the bound; once, with it.
    await new Promise((r) => setTimeout(r, 5000));
    expect(await runs()).toBe(1);
    expect(await jobsOf('schedule:* * * * * *')).toHaveLength(1);
  });

  it('claims one run a window when two fire within it at once (replicas whose timers differ by a second)', async () => {
    const db = addonsDb(inst.app.kernel.db);
    const claim = (at: number) => claimScheduleRun(db, 'ticker', 'schedule:0 0 1 1 *', at, 60_000);
    const window = Math.ceil(Date.now() / 60_000) * 60_000 + 10 * 60_000;
    expect((await Promise.all([claim(window + 1000), claim(window + 2000)])).filter(Boolean)).toHaveLength(1);
    expect(await claim(window + 59_000)).toBe(false);
    expect(await claim(window + 60_000)).toBe(true);
  });

  it('keeps a note of the size, not a result larger than the bound', async () => {
    const queued = await admin.post('/api/v1/jobs', { kind: SCHEDULE_JOB, payload: { key: 'ticker', hook: 'schedule:0 0 1 1 *', dueAt: Date.now() } });
    expect(queued.status, queued.text).toBe(201);
    const job = await inst.app.kernel.jobs.waitFor(queued.body.data.job.id, 20_000);
    expect(job.state).toBe('succeeded');
    expect(job.result).toEqual({ truncated: true, bytes: 50002 });
    expect(JSON.stringify(job.result).length).toBeLessThan(RESULT_MAX_BYTES);
  });

  it('deletes finished schedule jobs past a week and beyond the newest hundred of an add-on, and nothing else', () => checkSweep(inst));
});

describe('an operator allows schedules more often than once a minute (SVC_ADDON_SCHEDULE_MIN_SECONDS)', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_ADDON_SCHEDULE_MIN_SECONDS: '2' } }));
    const pkg = await packFixture(manifest('ticker', ['schedule:* * * * * *', 'schedule:0 0 1 1 *']), SERVER);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = await admin.get('/api/v1/add-ons/ticker/plan?version=1.0.0');
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body.data.plan.warnings).toContain(
      'schedule:* * * * * * would run more often than once every 2 seconds: it runs at most once every 2 seconds.',
    );
    const res = await admin.post('/api/v1/add-ons', { key: 'ticker', version: '1.0.0', planHash: plan.body.data.plan.hash });
    expect(res.status, res.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
  });

  it('runs the hook again after the operator’s interval, never sooner', async () => {
    const dues = async () =>
      (
        await addonsDb(inst.app.kernel.db)
          .selectFrom('schedule_runs')
          .select('due_at')
          .where('owner_kind', '=', 'addon')
          .where('owner_id', '=', 'ticker:schedule:* * * * * *')
          .orderBy('due_at')
          .execute()
      ).map((r) => Number(r.due_at));
    await expect.poll(async () => (await dues()).length, { timeout: 30_000, interval: 250 }).toBeGreaterThanOrEqual(3);
    const at = await dues();
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(2000);
  });
});

describe('the manifest bounds schedules', () => {
  it('refuses more than ten schedule hooks', () => {
    const hooks = Array.from({ length: 11 }, (_, i) => `schedule:${i} * * * *`);
    const check = parseAddonManifest(manifest('many', hooks));
    expect(check).toMatchObject({ ok: false, path: 'hooks', message: 'At most 10 schedule: hooks.' });
    expect(parseAddonManifest(manifest('many', hooks.slice(0, 10))).ok).toBe(true);
  });
});
