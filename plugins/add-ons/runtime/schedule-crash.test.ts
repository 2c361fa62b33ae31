import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { SCHEDULE_JOB } from './schedules.js';
import { packFixture, uploadPackage } from '../testing.js';

/**
 * Review of issue 26, point 5 (S11): a scheduled run lost to a crash runs once more, unless its
 * own isolate took the sandbox down: then running it again would only crash it again.
 */

const HOOK = 'schedule:0 0 1 1 *';
const manifest: AddonManifestInput = {
  key: 'bomber',
  name: 'Bomber',
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['kv'],
  limits: { memoryMb: 16, cpuMs: 2000 },
  hooks: [HOOK],
  actions: ['runs'],
};
// One huge allocation is beyond what V8 can refuse gracefully: it aborts the sandbox process (S11's fatal).
const SERVER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({
  hooks: {
    '${HOOK}': async (ctx) => {
      await ctx.kv.set('runs', ((await ctx.kv.get('runs')) ?? 0) + 1);
      return new Array(1e8).fill(0).length;
    },
  },
  actions: { runs: async (ctx) => (await ctx.kv.get('runs')) ?? 0 },
});
`;

describe('a scheduled hook that crashes the sandbox itself', () => {
  let inst: TestInstance;
  let admin: HttpClient;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin());
    const pkg = await packFixture(manifest, SERVER);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = await admin.get('/api/v1/add-ons/bomber/plan?version=1.0.0');
    const res = await admin.post('/api/v1/add-ons', { key: 'bomber', version: '1.0.0', planHash: plan.body.data.plan.hash });
    expect(res.status, res.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
  });

  it('is not run again', async () => {
    // Queued as the schedule queues it (maxAttempts 1: the job itself is not retried).
    const queued = await admin.post('/api/v1/jobs', { kind: SCHEDULE_JOB, payload: { key: 'bomber', hook: HOOK, dueAt: Date.now() } });
    expect(queued.status, queued.text).toBe(201);
    const job = await inst.app.kernel.jobs.waitFor(queued.body.data.job.id, 40_000);
    const code = String(job.error?.code ?? job.state);
    // On a loaded machine the allocation can outlast the wall time: the parent then gives up (ADDON_TIMEOUT), which is no crash to retry either.
    expect(['ADDON_CRASHED', 'ADDON_TIMEOUT']).toContain(code);
    const runs = await admin.post('/api/v1/public/apps/bomber/actions/runs', { input: null });
    expect(runs.status, runs.text).toBe(200);
    expect(runs.body.data.result).toBe(1);
  }, 60_000);
});
