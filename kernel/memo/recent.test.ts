import { describe, expect, it } from 'vitest';
import { TokenSigner } from '../crypto.js';
import { RecentAnswers } from './recent.js';

describe('RecentAnswers', () => {
  it('keeps answers up to its bound, then starts over', () => {
    const memo = new RecentAnswers<number>(3);
    memo.set('a', 1);
    memo.set('b', 2);
    memo.set('c', 3);
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([1, 2, 3]);
    memo.set('d', 4);
    expect([memo.get('a'), memo.get('b'), memo.get('c'), memo.get('d')]).toEqual([undefined, undefined, undefined, 4]);
  });
});

describe('TokenSigner with remembered MACs', () => {
  it('opens what it signed, again and again, and never a token altered after a first opening', () => {
    const signer = new TokenSigner('s'.repeat(32), 'test');
    const token = signer.sign('cGF5bG9hZA', 'ctx');
    expect(signer.open(token, 'ctx')).toBe('cGF5bG9hZA');
    expect(signer.open(token, 'ctx')).toBe('cGF5bG9hZA');
    expect(signer.open(token, 'other')).toBeNull();
    expect(signer.open(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, 'ctx')).toBeNull();
    // Another instance (a replica with the same secret) makes the same MAC without any memory of it.
    expect(new TokenSigner('s'.repeat(32), 'test').open(token, 'ctx')).toBe('cGF5bG9hZA');
    expect(new TokenSigner('t'.repeat(32), 'test').open(token, 'ctx')).toBeNull();
  });
});
