import { describe, expect, it } from 'vitest';
import { idFloor, newId, requestIds } from './ids.js';

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

  it('honours an explicit earlier time', () => {
    const now = Date.now();
    newId(now);
    expect(newId(now - 60_000).slice(0, 10) < newId(now).slice(0, 10)).toBe(true);
  });

  it('idFloor is at or below every id of that millisecond and above every earlier one', () => {
    const at = Date.now() - 5000;
    expect(idFloor(at) <= newId(at)).toBe(true);
    expect(idFloor(at) > newId(at - 1)).toBe(true);
  });
});

describe('requestIds (decisions K39)', () => {
  it('counts under a prefix drawn once per source, so two processes never share an id', () => {
    const a = requestIds();
    const b = requestIds();
    const fromA = [a(), a(), a()];
    expect(fromA[0]).toMatch(/^[0-9a-hjkmnp-tv-z]{10}-1$/);
    expect(fromA.map((id) => id.split('-')[1])).toEqual(['1', '2', '3']);
    expect(new Set(fromA.map((id) => id.split('-')[0])).size).toBe(1);
    expect(b().split('-')[0]).not.toBe(fromA[0]!.split('-')[0]);
  });
});
