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
    // Reads only (running it again changes nothing), busy until 'go' is set.
    wait: async (ctx) => {
      for (let i = 0; i < 90; i++) {
        if (await ctx.kv.get('go')) return 'released';
        const end = Date.now() + 18;
        while (Date.now() < end);
      }
      return 'gave up';
    },
    go: async (ctx) => { await ctx.kv.set('go', true); return 'set'; },
    reset: async (ctx) => { await ctx.kv.delete('go'); return 'reset'; },
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
    await install(manifest('counter', ['count', 'spin', 'wait', 'go', 'reset']), COUNTER);
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
    const { pid } = sandbox.stats();
    // A call of the counter that only reads stays in flight until the bomb has gone off. (On a
    // loaded machine the bomb's allocation can outlast its CPU time, a timeout and no crash: again.)
    let overlapped = false;
    for (let i = 0; i < 4 && !overlapped; i++) {
      const before = sandbox.stats();
      const wait = action('counter', 'wait');
      const start = Date.now();
      while (sandbox.stats().inFlight === 0 && Date.now() - start < 10_000) await new Promise((r) => setTimeout(r, 10));
      const bomb = await action('bomber', 'bomb');
      expect(['ADDON_CRASHED', 'ADDON_TIMEOUT']).toContain(bomb.body.error.code);
      expect((await action('counter', 'go')).body.data.result).toBe('set');
      const waited = await wait;
      // Whatever happened to the bomb, the counter's call is answered.
      expect(waited.status).toBe(200);
      // The bomb crashed the child while the counter's call was in flight (it ran again), not before or after it.
      overlapped = bomb.body.error.code === 'ADDON_CRASHED' && sandbox.stats().retries > before.retries;
      if (overlapped) expect(waited.body.data.result).toBe('released');
      expect((await action('counter', 'reset')).body.data.result).toBe('reset');
    }
    expect(overlapped).toBe(true);
    expect(sandbox.stats().pid).not.toBe(pid);
  }, 60_000);
});
