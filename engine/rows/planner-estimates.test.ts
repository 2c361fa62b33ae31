import { describe, expect, it } from 'vitest';
import { PlannerEstimates } from './planner-estimates.js';

describe('PlannerEstimates', () => {
  it('asks once, answers the known figure while it is fresh, refreshes an old one once in the background', async () => {
    let clock = 0;
    const cache = new PlannerEstimates(10, 100, () => clock);
    let asked = 0;
    let release: (n: number) => void = () => undefined;
    const explain = () => (asked++, asked === 1 ? Promise.resolve(500) : new Promise<number>((r) => (release = r)));
    expect(await cache.read('k', explain)).toBe(500);
    expect(await cache.read('k', explain)).toBe(500);
    expect(asked).toBe(1);
    clock = 200;
    expect(await cache.read('k', explain)).toBe(500);
    expect(await cache.read('k', explain)).toBe(500);
    expect(asked).toBe(2);
    release(700);
    await new Promise((r) => setImmediate(r));
    expect(await cache.read('k', explain)).toBe(700);
  });

  it('keeps the old figure when a refresh fails, and stays bounded by dropping the least recently used', async () => {
    let clock = 0;
    const cache = new PlannerEstimates(2, 100, () => clock);
    await cache.read('a', async () => 1);
    clock = 500;
    expect(await cache.read('a', () => Promise.reject(new Error('gone')))).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(await cache.read('a', async () => 9)).toBe(1);
    await cache.read('b', async () => 2);
    await cache.read('a', async () => 1);
    await cache.read('c', async () => 3);
    expect(cache.size).toBe(2);
    let asked = false;
    await cache.read('b', async () => ((asked = true), 2));
    expect(asked).toBe(true);
    cache.forget('');
    expect(cache.size).toBe(0);
  });
});
