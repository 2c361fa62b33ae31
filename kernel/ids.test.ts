import { describe, expect, it } from 'vitest';
import { newId } from './ids.js';

describe('newId', () => {
  it('is 26 characters of Crockford base32', () => {
    expect(newId()).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('sorts by time, and strictly increases within one millisecond', () => {
    const at = Date.now();
    const ids = Array.from({ length: 1000 }, () => newId(at));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
    expect(newId(at + 1) > ids[999]!).toBe(true);
  });

  it('keeps increasing when the clock steps back', () => {
    const a = newId(Date.now() + 10_000);
    const b = newId(Date.now());
    expect(b > a).toBe(true);
  });
});
