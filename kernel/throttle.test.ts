import { describe, expect, it } from 'vitest';
import { SlidingWindowCounter } from './throttle.js';

describe('SlidingWindowCounter', () => {
  it('allows up to the limit within the window, then says when to retry', () => {
    let now = 1_000_000;
    const c = new SlidingWindowCounter(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(c.retryAfter('k')).toBe(0);
      c.record('k');
      now += 1000;
    }
    expect(c.retryAfter('k')).toBe(57); // the first hit (at t=0) leaves the window at t=60 s, 57 s from now
    expect(c.retryAfter('other')).toBe(0);
    now += 57_000;
    expect(c.retryAfter('k')).toBe(0);
  });
  it('reset clears a key', () => {
    const c = new SlidingWindowCounter(1, 60_000);
    c.record('k');
    expect(c.retryAfter('k')).toBeGreaterThan(0);
    c.reset('k');
    expect(c.retryAfter('k')).toBe(0);
  });
});

describe('SlidingWindowCounter holds', () => {
  it('counts held events against the limit until released', () => {
    const c = new SlidingWindowCounter(2, 60_000);
    c.hold('k');
    c.record('k');
    expect(c.retryAfter('k')).toBe(1);
    c.release('k');
    expect(c.retryAfter('k')).toBe(0);
    c.release('k'); // an extra release does not go below zero
    c.hold('k');
    expect(c.retryAfter('k')).toBe(1);
  });
});
