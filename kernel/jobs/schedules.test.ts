import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { definePlugin } from '../plugin/manifest.js';
import type { Kernel } from '../kernel-services.js';
import type { ScheduledItem } from './schedules.js';

/**
 * K49: the kernel's scheduler with real timers. A source lists items; each due time becomes one
 * claim and one job across replicas; a change the source makes is picked up by `reload()`.
 */
function schedulePlugin(items: ScheduledItem[], runs: Array<{ item: string; instance: string }>) {
  return definePlugin({
    name: 'schedtest',
    version: '1.0.0',
    permissions: [{ name: 'schedtest.admin', label: 'Schedule test', description: 'Test only.' }],
    jobs: {
      'schedtest.tick': {
        permission: 'schedtest.admin',
        maxAttempts: 1,
        schema: z.strictObject({ item: z.string(), dueAt: z.number() }),
        handler: async (ctx) => {
          runs.push({ item: (ctx.payload as { item: string }).item, instance: ctx.kernel.instanceId });
          return null;
        },
      },
    },
    setup: (kernel: Kernel) => {
      kernel.schedules.register({
        kind: 'schedtest',
        list: () => items,
        job: (item, dueAt) => ({ kind: 'schedtest.tick', payload: { item: item.id, dueAt }, maxAttempts: 1 }),
      });
    },
  });
}

const available = await databaseAvailable('postgres');
const env = { SVC_SECRET: 'replica-secret-'.padEnd(40, 'x') };

describe.runIf(available)('the kernel scheduler on two replicas sharing a PostgreSQL meta store', () => {
  const items: ScheduledItem[] = [{ id: 'every-second', cron: '* * * * * *', timeZone: 'Europe/Berlin' }];
  const runs: Array<{ item: string; instance: string }> = [];
  let a: TestInstance;
  let b: TestInstance;
  beforeAll(async () => {
    a = await startInstance({ meta: 'postgres', env, plugins: [schedulePlugin(items, runs)] });
    b = await startInstance({ metaUrl: a.metaUrl!, env, plugins: [schedulePlugin(items, runs)] });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const claims = async (id: string) =>
    a.app.kernel.db.selectFrom('schedule_runs').select(['due_at', 'job_id']).where('owner_kind', '=', 'schedtest').where('owner_id', '=', id).execute();

  it('runs each due time once, as one claim and one job, whichever replica fires', async () => {
    await expect.poll(async () => (await claims('every-second')).length, { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(3);
    const got = await claims('every-second');
    // One claim a due time, each naming its job; no due time run twice.
    expect(new Set(got.map((c) => Number(c.due_at))).size).toBe(got.length);
    expect(got.every((c) => c.job_id !== null)).toBe(true);
    const jobs = await a.app.kernel.db.selectFrom('jobs').select('id').where('kind', '=', 'schedtest.tick').execute();
    expect(new Set(jobs.map((j) => j.id))).toEqual(new Set(got.map((c) => c.job_id)));
  });

  it('follows a change of the source at its reload', async () => {
    items.splice(0, items.length, { id: 'renamed', cron: '* * * * * *', timeZone: 'UTC' });
    await a.app.kernel.schedules.reload();
    await b.app.kernel.schedules.reload();
    const before = (await claims('every-second')).length;
    await expect.poll(async () => (await claims('renamed')).length, { timeout: 20_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    // The old item's timers are gone: at most a due time per replica was in flight at the change.
    expect((await claims('every-second')).length).toBeLessThanOrEqual(before + 2);
  });
});
