import { describe, expect, it } from 'vitest';
import { definePlugin } from '../plugin/manifest.js';
import { buildRouteTree } from '../plugin/route-tree.js';
import { loadJobKinds } from './kinds.js';
import { backoffMs, resolveJobOptions } from './options.js';
import { fraction } from './progress.js';

const handler = async () => null;
const owner = definePlugin({
  name: 'owner',
  version: '1.0.0',
  permissions: [{ name: 'owner.run', label: 'Run', description: 'Run owner jobs.' }],
  jobs: { 'owner.sync': { permission: 'owner.run', maxAttempts: 4, description: 'Syncs.', handler } },
});

describe('job kinds in manifests', () => {
  it('load with their permission and attempts', () => {
    const { plugins } = buildRouteTree([owner]);
    const kinds = loadJobKinds(plugins);
    expect(kinds.get('owner.sync')).toMatchObject({ plugin: 'owner', permission: 'owner.run', maxAttempts: 4, description: 'Syncs.' });
    const plain = definePlugin({ ...owner, name: 'plain', permissions: [], jobs: { 'plain.x': { permission: 'owner.run', handler } }, requires: ['owner'] });
    expect(loadJobKinds(buildRouteTree([owner, plain]).plugins).get('plain.x')?.maxAttempts).toBe(3);
  });

  it('refuse to start on a permission no plugin declares, on `self`, on a kind declared twice, on a bad name', () => {
    const bad = (jobs: Record<string, unknown>) => definePlugin({ name: 'bad', version: '1.0.0', requires: ['owner'], jobs: jobs as never });
    expect(() => buildRouteTree([owner, bad({ 'bad.x': { permission: 'nobody.has', handler } })])).toThrow(
      'job kind bad.x of plugin bad needs permission nobody.has, which no loaded plugin declares',
    );
    expect(() => buildRouteTree([owner, bad({ 'bad.x': { permission: 'self', handler } })])).toThrow(/needs permission self/);
    expect(() => buildRouteTree([owner, bad({ 'owner.sync': { permission: 'owner.run', handler } })])).toThrow(
      'job kind owner.sync is declared by both owner and bad',
    );
    expect(() => buildRouteTree([owner, bad({ NoDots: { permission: 'owner.run', handler } })])).toThrow(/manifest field jobs.NoDots/);
    expect(() => buildRouteTree([owner, bad({ 'bad.x': { permission: 'owner.run', maxAttempts: 0, handler } })])).toThrow(/jobs.bad.x.maxAttempts/);
    expect(() => buildRouteTree([owner, bad({ 'bad.x': { permission: 'owner.run' } })])).toThrow(/jobs.bad.x.handler/);
  });
});

describe('job options', () => {
  it('back off exponentially up to the cap', () => {
    const o = resolveJobOptions({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    expect([1, 2, 3, 4, 50].map((n) => backoffMs(n, o))).toEqual([2000, 4000, 8000, 10_000, 10_000]);
    expect(resolveJobOptions()).toMatchObject({ workers: 2, leaseMs: 30_000, progressThrottleMs: 250 });
    expect(() => resolveJobOptions({ workers: -1 })).toThrow(/jobs.workers/);
    expect(() => resolveJobOptions({ leaseMs: 10 })).toThrow(/leaseMs/);
  });

  it('turn done/total into 0..1, or null without a usable total', () => {
    expect([fraction(1, 4), fraction(9, 4), fraction(-1, 4), fraction(3, null), fraction(3, 0), fraction(Number.NaN, 4)]).toEqual([
      0.25,
      1,
      0,
      null,
      null,
      null,
    ]);
  });
});
