import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../../test/helpers/instance.js';
import { packFixture, uploadPackage } from '../testing.js';

/**
 * The sandbox child as installed add-ons see it (issue 30, AO36, AO37): started at install and
 * at boot rather than by the first call, warm contexts dropped when their add-on is disabled, and
 * one add-on's crash leaving the calls of the others in flight answered.
 */

const manifest = (key: string, actions: string[], limits = { memoryMb: 64, cpuMs: 2000 }): AddonManifestInput => ({
  key,
  capabilities: ['kv'],
  name: key,
  version: '1.0.0',
  engine: '>=0.1.0',
  limits,
  actions,
});
const COUNTER = `
import { defineAddon } from '@svc/addons-sdk';
let calls = 0;
export default defineAddon({
  actions: {
    count: () => ++calls,
    // Pure work, no host call: nothing of it is left after a crash, so it may run again.
    spin: (ctx, input) => { const end = Date.now() + input.ms; let n = 0; while (Date.now() < end) n++; return 'spun'; },
    // Reads only: running it again changes nothing.
    read: async (ctx, input) => { for (let i = 0; i < input.n; i++) await ctx.kv.get('k'); return 'read'; },
  },
});
`;
// One huge allocation is beyond what V8 can refuse gracefully: it aborts the sandbox process.
const BOMB = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({ actions: { bomb: () => new Array(1e8).fill(0).length } });
`;

describe('the sandbox child of installed add-ons', () => {
  let inst: TestInstance;
  let replica: TestInstance | null = null;
  let admin: HttpClient;

  const install = async (m: AddonManifestInput, server: string) => {
    expect((await uploadPackage(inst.url, admin, (await packFixture(m, server)).bytes)).status).toBe(201);
    const plan = await admin.get(`/api/v1/add-ons/${m.key}/plan?version=1.0.0`);
    const res = await admin.post('/api/v1/add-ons', { key: m.key, version: '1.0.0', planHash: plan.body.data.plan.hash });
    expect(res.status, res.text).toBe(201);
  };
  const action = (key: string, name: string, input: unknown = null) => admin.post(`/api/v1/public/apps/${key}/actions/${name}`, { input });

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ meta: 'postgres' }));
  }, 60_000);
  afterAll(async () => {
    await replica?.close();
    await inst?.close();
  });

  it('starts when an add-on with code is installed, and at the boot of an instance that has one, before any call', async () => {
    expect(inst.app.kernel.sandbox.stats()).toMatchObject({ pid: null, starts: 0 });
    await install(manifest('counter', ['count', 'spin', 'read']), COUNTER);
    expect(inst.app.kernel.sandbox.stats().pid).not.toBeNull();
    expect(inst.app.kernel.sandbox.stats().calls).toBe(0);
    // Another replica on the same meta store boots with it installed.
    replica = await startInstance({ metaUrl: inst.metaUrl! });
    expect(replica.app.kernel.sandbox.stats()).toMatchObject({ starts: 1, calls: 0 });
    expect(replica.app.kernel.sandbox.stats().pid).not.toBeNull();
    await replica.close();
    replica = null;
  }, 60_000);

  it("keeps the module's state between calls and drops it when the add-on is disabled", async () => {
    expect((await action('counter', 'count')).body.data.result).toBe(1);
    expect((await action('counter', 'count')).body.data.result).toBe(2);
    expect((await admin.patch('/api/v1/add-ons/counter', { enabled: false })).status).toBe(200);
    expect((await admin.patch('/api/v1/add-ons/counter', { enabled: true })).status).toBe(200);
    expect((await action('counter', 'count')).body.data.result).toBe(1);
  });

  it("answers another add-on's calls in flight when one add-on crashes the child", async () => {
    await install(manifest('bomber', ['bomb'], { memoryMb: 16, cpuMs: 2000 }), BOMB);
    const sandbox = inst.app.kernel.sandbox;
    const { pid, retries } = sandbox.stats();
    // Two calls of the counter in flight, one computing and one reading (isolated-vm runs as many
    // isolates at once as there are cores: one is left for the bomb), and the bomb among them.
    const spin = action('counter', 'spin', { ms: 1000 });
    const read = action('counter', 'read', { n: 90 });
    await new Promise((r) => setTimeout(r, 150));
    const bomb = await action('bomber', 'bomb');
    expect([bomb.status, bomb.body.error.code]).toEqual([502, 'ADDON_CRASHED']);
    expect([(await spin).status, (await spin).body.data?.result]).toEqual([200, 'spun']);
    expect([(await read).status, (await read).body.data?.result]).toEqual([200, 'read']);
    expect(sandbox.stats().pid).not.toBe(pid);
    expect(sandbox.stats().retries).toBeGreaterThan(retries);
  }, 60_000);
});
