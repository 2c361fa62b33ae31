import { describe, expect, it } from 'vitest';
import { AppError } from '../../../kernel/errors.js';
import '../errors.js';
import { registerErrorCodes } from '../../../kernel/errors.js';
import { PUBLIC_ERRORS } from '../errors.js';
import { PublicLimits, type ChargePlan } from './policy.js';
import { DistinctWindow } from './distinct.js';
import { WeightedWindow } from './window.js';

registerErrorCodes(PUBLIC_ERRORS);

const plan = (over: Partial<ChargePlan> = {}): ChargePlan => ({
  keyId: 'k',
  kind: 'browser',
  peak: 1,
  visitor: 'a:1',
  traffic: 'read',
  endpoint: { ref: 'r', limit: 1000 },
  rows: 1,
  ...over,
});

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('not refused');
}

describe('weighted window', () => {
  it('answers alike for a key seen once (kept as a bare time) and after its second entry', () => {
    let now = 1_000;
    const w = new WeightedWindow(60_000, () => now);
    expect(w.take('once', 1, 1)).toBe(0);
    expect(w.used('once')).toBe(1);
    now = 21_000;
    expect(w.take('once', 1, 1)).toBe(40);
    expect(w.wait('once', 2, 2)).toBe(40);
    w.refund('once', 1);
    expect(w.used('once')).toBe(0);
    expect(w.take('once', 1, 5)).toBe(0);
    now = 22_000;
    expect(w.take('once', 1, 5)).toBe(0);
    expect(w.used('once')).toBe(2);
    // The first entry (21 s) leaves at 81 s, the second at 82 s.
    expect(w.wait('once', 4, 5)).toBe(59);
    now = 81_000;
    expect(w.used('once')).toBe(1);
    now = 82_000;
    expect(w.used('once')).toBe(0);
  });

  it('stays exact for a busy key whose log is cut at the front now and then', () => {
    let now = 0;
    const w = new WeightedWindow(60_000, () => now);
    // One entry per 10 ms for two windows: entries leave one by one, and the log is compacted on the way.
    for (let i = 0; i < 12_000; i++) {
      now = i * 10;
      w.add('busy', 1);
      if (i % 997 === 0) expect(w.used('busy')).toBe(Math.min(i + 1, 6000));
    }
    expect(w.used('busy')).toBe(6000);
    // The oldest live entry is at 60 000 ms: one more than 6000 fits when it leaves, at 120 000.
    expect(w.wait('busy', 1, 6000)).toBe(1);
    w.refund('busy', 2);
    expect(w.used('busy')).toBe(5998);
    now = 119_990 + 60_000;
    expect(w.used('busy')).toBe(0);
  });

  it('counts costs, refunds and says when a cost fits again', () => {
    let now = 0;
    const w = new WeightedWindow(60_000, () => now);
    w.add('x', 3);
    now = 10_000;
    w.add('x', 2);
    expect(w.used('x')).toBe(5);
    expect(w.wait('x', 1, 5)).toBe(50);
    expect(w.wait('x', 3, 5)).toBe(50);
    expect(w.wait('x', 6, 5)).toBe(60);
    w.refund('x', 2);
    expect(w.wait('x', 2, 5)).toBe(0);
    now = 70_001;
    expect(w.used('x')).toBe(0);
  });

  it('lets go of keys nobody asks about again within two windows, and keeps a busy key exact across them', () => {
    let now = 0;
    const w = new WeightedWindow(60_000, () => now);
    // One-off callers (kept as bare times) and a key that keeps asking (a log).
    for (let i = 0; i < 1000; i++) w.take(`once ${i}`, 1, 600);
    for (let t = 0; t < 180_000; t += 1000) {
      now = t;
      expect(w.take('busy', 1, 1000)).toBe(0);
      // The busy key holds exactly the last minute's entries, whichever generation they were written in.
      expect(w.used('busy')).toBe(Math.min(t / 1000 + 1, 60));
      // A one-off caller's entry counts until it leaves the window, and only then.
      expect(w.used('once 7')).toBe(t < 60_000 ? 1 : 0);
    }
    // Three windows on, the one-off callers are gone without anything having swept them.
    expect(w.size).toBeLessThan(5);
    now = 500_000;
    expect(w.used('busy')).toBe(0);
    expect(w.size).toBe(0);
  });

  it('takes back a bare entry in either generation', () => {
    let now = 0;
    const w = new WeightedWindow(60_000, () => now);
    expect(w.take('a', 1, 1)).toBe(0);
    now = 59_000;
    expect(w.take('c', 1, 1)).toBe(0);
    now = 61_000;
    // A new generation began at 61 s: 'c' (59 s, in the window until 119 s) sits in the older one.
    expect(w.take('c', 1, 1)).toBe(58);
    w.refund('c', 1);
    expect(w.used('c')).toBe(0);
    // 'a' (0 s) has left; written again, its entry is in the current generation, and taken back there.
    expect(w.take('a', 1, 1)).toBe(0);
    w.refund('a', 1);
    expect(w.used('a')).toBe(0);
    expect(w.take('a', 1, 1)).toBe(0);
    expect(w.take('a', 1, 1)).toBe(60);
  });
});

describe('public limits', () => {
  it('gives each browser visitor a twelfth of the key, raised by the peak', () => {
    expect(PublicLimits.visitorBudget('read', 1)).toBe(250);
    expect(PublicLimits.visitorBudget('write', 1)).toBe(25);
    expect(PublicLimits.keyBudget('write', 5)).toBe(1500);
    expect(PublicLimits.keyBudget('write', 9)).toBe(1500);
    expect(PublicLimits.visitorBudget('write', 3)).toBe(75);
  });

  it('refuses the 26th write of one visitor with Retry-After, while another visitor goes on', () => {
    let now = 1_000_000;
    const limits = new PublicLimits(() => now);
    for (let i = 0; i < 25; i++) limits.charge(plan({ traffic: 'write' }));
    const err = refusal(() => limits.charge(plan({ traffic: 'write' })));
    expect(err.code).toBe('PUBLIC_RATE_LIMITED');
    expect(err.headers).toEqual({ 'retry-after': '60' });
    expect(err.params).toMatchObject({ limit: 'visitor' });
    limits.charge(plan({ traffic: 'write', visitor: 'a:2' }));
    now += 60_000;
    limits.charge(plan({ traffic: 'write' }));
  });

  it('counts a batch once per row against the endpoint and once against the key', () => {
    const limits = new PublicLimits(() => 0);
    limits.charge(plan({ traffic: 'write', rows: 100, endpoint: { ref: 'r', limit: 120 } }));
    expect(refusal(() => limits.charge(plan({ traffic: 'write', rows: 21, endpoint: { ref: 'r', limit: 120 } }))).params).toMatchObject({ limit: 'endpoint' });
    limits.charge(plan({ traffic: 'write', rows: 20, endpoint: { ref: 'r', limit: 120 } }));
  });

  it('limits a server key across the whole key, not per visitor, and has no whole-key budget', () => {
    const limits = new PublicLimits(() => 0);
    for (let i = 0; i < 3; i++) limits.charge(plan({ kind: 'server', visitor: `a:${i}`, endpoint: { ref: 'r', limit: 3 } }));
    expect(refusal(() => limits.charge(plan({ kind: 'server', visitor: 'a:9', endpoint: { ref: 'r', limit: 3 } }))).code).toBe('PUBLIC_RATE_LIMITED');
  });

  it('takes a refused request back from the whole-key count only', () => {
    const limits = new PublicLimits(() => 0);
    for (let i = 0; i < 300; i++) limits.charge(plan({ traffic: 'write', visitor: `a:${i % 20}` })).refundKey();
    limits.charge(plan({ traffic: 'write', visitor: 'a:99' }));
    for (let i = 0; i < 25; i++) limits.charge(plan({ traffic: 'write', visitor: 'a:98' })).refundKey();
    expect(refusal(() => limits.charge(plan({ traffic: 'write', visitor: 'a:98' }))).params).toMatchObject({ limit: 'visitor' });
  });

  it('refuses the 601st request of an address', () => {
    const limits = new PublicLimits(() => 0);
    for (let i = 0; i < 600; i++) limits.chargeAddress('1.2.3.4');
    expect(refusal(() => limits.chargeAddress('1.2.3.4')).params).toMatchObject({ limit: 'address' });
    limits.chargeAddress('1.2.3.5');
  });
});

describe('party sizes asked of availability', () => {
  it('lets an address ask four different sizes in ten minutes, repeats free, a fifth refused until the oldest leaves', () => {
    let now = 0;
    const limits = new PublicLimits(() => now);
    const ask =
      (party: number, address = '203.0.113.9', kind: 'browser' | 'server' = 'browser') =>
      () =>
        limits.chargePartySize('k', kind, 'tables', address, party);
    for (const p of [2, 3, 4, 5]) ask(p)();
    now = 60_000;
    ask(2)();
    const refused = refusal(ask(6));
    expect(refused.code).toBe('PUBLIC_RATE_LIMITED');
    expect(refused.params).toEqual({ limit: 'party-sizes', retryAfter: 540 });
    ask(6, '203.0.113.10')();
    for (let p = 1; p <= 20; p++) ask(p, '203.0.113.9', 'server')();
    now = 600_001;
    // 3, 4 and 5 have left; 2 was asked again at one minute.
    ask(6)();
    ask(7)();
    ask(8)();
    expect(refusal(ask(9)).params).toMatchObject({ retryAfter: 60 });
  });

  it('keeps the sizes an address asked across generations, and lets go of the addresses nobody asks for again', () => {
    let now = 0;
    const w = new DistinctWindow(600_000, 4, () => now);
    for (const p of [1, 2]) expect(w.take('a', p)).toBe(0);
    for (let i = 0; i < 100; i++) w.take(`once ${i}`, 1);
    now = 500_000;
    for (const p of [3, 4]) expect(w.take('a', p)).toBe(0);
    // A new generation begins at 601 s: 1 and 2 have left, 3 and 4 (asked at 500 s) still count.
    now = 601_000;
    for (const p of [5, 6]) expect(w.take('a', p)).toBe(0);
    expect(w.take('a', 7)).toBe(499);
    now = 1_300_000;
    expect(w.take('b', 1)).toBe(0);
    // 'a' lives on in the older generation, 'b' in the current one; the hundred one-off addresses are gone.
    expect(w.size).toBe(2);
    expect(w.take('a', 7)).toBe(0);
  });

  it('counts an IPv6 address by its /64', async () => {
    const { networkOf } = await import('./policy.js');
    expect(networkOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:DB8:1:2:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(networkOf('203.0.113.9')).toBe('203.0.113.9');
    expect(networkOf('::ffff:203.0.113.9')).toBe('::ffff:203.0.113.9');
    let now = 0;
    const limits = new PublicLimits(() => now);
    for (let i = 1; i <= 4; i++) limits.chargePartySize('k', 'browser', 'r', `2001:db8:1:2::${i}`, i);
    expect(refusal(() => limits.chargePartySize('k', 'browser', 'r', '2001:db8:1:2::99', 5)).code).toBe('PUBLIC_RATE_LIMITED');
    limits.chargePartySize('k', 'browser', 'r', '2001:db8:1:3::1', 5);
  });
});
