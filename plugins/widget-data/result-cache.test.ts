import { describe, expect, it } from 'vitest';
import { ResultCache } from './result-cache.js';
import type { WidgetResult } from './schemas.js';

const value = (v: number): WidgetResult => ({ kind: 'value', value: v });

describe('widget result cache (WD6)', () => {
  it('runs a statement asked by several callers at once one time, and answers it again until it is 10 s old', async () => {
    let now = 1_000_000;
    const cache = new ResultCache(() => now);
    let runs = 0;
    let release!: () => void;
    const compute = () => {
      runs++;
      return new Promise<WidgetResult>((resolve) => (release = () => resolve(value(runs))));
    };
    const scope = { connectionId: 'c', table: 't' };
    const asked = [cache.get('k', scope, compute), cache.get('k', scope, compute), cache.get('k', scope, compute)];
    release();
    const answers = await Promise.all(asked);
    expect(runs).toBe(1);
    expect(answers.map((a) => [a.result, a.cached])).toEqual([
      [value(1), false],
      [value(1), true],
      [value(1), true],
    ]);
    now += 9_999;
    expect((await cache.get('k', scope, compute)).cached).toBe(true);
    // Fresh: the kept result is not used; callers meanwhile share the new run.
    const again = [cache.get('k', { ...scope, fresh: true }, compute), cache.get('k', scope, compute)];
    release();
    expect((await Promise.all(again)).map((a) => [a.result, a.cached])).toEqual([
      [value(2), false],
      [value(2), true],
    ]);
    now += 10_000;
    const fresh = cache.get('k', scope, compute);
    release();
    expect(await fresh).toMatchObject({ result: value(3), cached: false, computedAt: now });
  });

  it('keeps no failure, forgets a table’s or a connection’s results, and keeps at most its bound', async () => {
    const cache = new ResultCache(Date.now, 10_000, 2);
    await expect(cache.get('bad', { connectionId: 'c', table: 't' }, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect((await cache.get('bad', { connectionId: 'c', table: 't' }, async () => value(1))).cached).toBe(false);
    await cache.get('u', { connectionId: 'c', table: 'u' }, async () => value(2));
    cache.forget('c', 't');
    expect((await cache.get('bad', { connectionId: 'c', table: 't' }, async () => value(3))).cached).toBe(false);
    expect((await cache.get('u', { connectionId: 'c', table: 'u' }, async () => value(4))).cached).toBe(true);
    cache.forget('c');
    expect((await cache.get('u', { connectionId: 'c', table: 'u' }, async () => value(5))).cached).toBe(false);
    await cache.get('x', { connectionId: 'd', table: 'x' }, async () => value(6));
    await cache.get('y', { connectionId: 'd', table: 'y' }, async () => value(7));
    // Bound 2: 'u' (the oldest) went.
    expect((await cache.get('u', { connectionId: 'c', table: 'u' }, async () => value(8))).result).toEqual(value(8));
  });

  it('with a time of 0 (SVC_WIDGET_CACHE_MS=0) runs every call', async () => {
    const cache = new ResultCache(Date.now, 0);
    let runs = 0;
    const compute = async () => value(++runs);
    const scope = { connectionId: 'c', table: 't' };
    await Promise.all([cache.get('k', scope, compute), cache.get('k', scope, compute)]);
    expect((await cache.get('k', scope, compute)).cached).toBe(false);
    expect(runs).toBe(3);
  });
});
