import { Generations } from './generations.js';

/**
 * Weighted sliding-window log in process memory (the seed's counters are per process). Unlike
 * the kernel's SlidingWindowCounter it takes a cost (a batch counts one per row against an
 * endpoint limit) and gives a charge back (refused requests do not count toward the
 * browser-key whole-key limit).
 */
interface Log {
  /** Entries before `head` have left the window; they are dropped in bulk (see prune). */
  at: number[];
  cost: number[];
  head: number;
  total: number;
}

/** Dropped entries are compacted away once there are this many and they are half the log. */
const COMPACT_AFTER = 1024;

/**
 * A key's entries: a Log, or for a key with one entry of cost 1 (most addresses, which a
 * public API sees once) just its time, less its generation's start: a small integer V8 keeps
 * in the map itself, where a time since 1970 would be one more object per key to collect.
 */
type Stored = Log | number;

/** What prune() answers: the live entries as a Log, a bare entry's time, or undefined for none. */
type Live = Log | number | undefined;

const totalOf = (e: Live) => (e === undefined ? 0 : typeof e === 'number' ? 1 : e.total);

export class WeightedWindow {
  private readonly generations: Generations<Stored>;

  constructor(
    readonly windowMs: number,
    private readonly now: () => number,
  ) {
    this.generations = new Generations(windowMs, now());
  }

  private prune(key: string, at: number): Live {
    const gens = this.generations;
    gens.turn(at);
    let gen = gens.current;
    let stored = gen.entries.get(key);
    if (stored === undefined) {
      gen = gens.older;
      stored = gen.entries.get(key);
      if (stored === undefined) return undefined;
    }
    const cutoff = at - this.windowMs;
    if (typeof stored === 'number') {
      const time = stored + gen.start;
      return time > cutoff ? time : undefined;
    }
    // Kept in the generation written now, so the log lives on for as long as it is used.
    if (gen !== gens.current) gens.current.entries.set(key, stored);
    const log = stored;
    let i = log.head;
    while (i < log.at.length && log.at[i]! <= cutoff) log.total -= log.cost[i++]!;
    // A busy key holds an entry per millisecond of the window: moving them all on every request
    // would cost more than the request, so the front is only cut off now and then.
    if (i >= COMPACT_AFTER && i * 2 >= log.at.length) {
      log.at.splice(0, i);
      log.cost.splice(0, i);
      i = 0;
    }
    log.head = i;
    return i === log.at.length ? undefined : log;
  }

  used(key: string): number {
    return totalOf(this.prune(key, this.now()));
  }

  /**
   * Whole seconds until `cost` more fit under `limit`; 0 when they fit now. A cost larger than
   * the limit never fits: the answer is the whole window, the most any caller should wait.
   */
  wait(key: string, cost: number, limit: number): number {
    const at = this.now();
    return this.waitFor(this.prune(key, at), at, cost, limit);
  }

  private waitFor(entries: Live, at: number, cost: number, limit: number): number {
    const used = totalOf(entries);
    if (used + cost <= limit) return 0;
    if (cost > limit || entries === undefined) return Math.ceil(this.windowMs / 1000);
    // One entry of cost 1 that is in the way: the cost fits when it leaves.
    if (typeof entries === 'number') return Math.max(1, Math.ceil((entries + this.windowMs - at) / 1000));
    const log = entries;
    let excess = used + cost - limit;
    for (let i = log.head; i < log.at.length; i++) {
      excess -= log.cost[i]!;
      if (excess <= 0) return Math.max(1, Math.ceil((log.at[i]! + this.windowMs - at) / 1000));
    }
    return Math.ceil(this.windowMs / 1000);
  }

  add(key: string, cost: number): void {
    const at = this.now();
    this.addAt(key, cost, at, this.prune(key, at));
  }

  /** `add` when it fits under `limit`, in one lookup (every public request does this per address); else the wait as `wait` tells it. */
  take(key: string, cost: number, limit: number): number {
    const at = this.now();
    const entries = this.prune(key, at);
    const wait = this.waitFor(entries, at, cost, limit);
    if (wait === 0) this.addAt(key, cost, at, entries);
    return wait;
  }

  /** `entries` as prune() gave them at `at` (a log it gave is in the current generation). */
  private addAt(key: string, cost: number, at: number, entries: Live): void {
    const current = this.generations.current;
    if (entries === undefined) {
      current.entries.set(key, cost === 1 ? at - current.start : { at: [at], cost: [cost], head: 0, total: cost });
      return;
    }
    const log = typeof entries === 'number' ? { at: [entries], cost: [1], head: 0, total: 1 } : entries;
    if (log !== entries) current.entries.set(key, log);
    const last = log.at.length - 1;
    if (log.at[last] === at) log.cost[last]! += cost;
    else {
      log.at.push(at);
      log.cost.push(cost);
    }
    log.total += cost;
  }

  /** Takes back `cost` from the newest entries (the request it was charged for was refused). */
  refund(key: string, cost: number): void {
    const entries = this.prune(key, this.now());
    if (entries === undefined || cost <= 0) return;
    if (typeof entries === 'number') {
      // Out of both generations: the current one no longer hides the older one's entry for the key.
      this.generations.current.entries.delete(key);
      this.generations.older.entries.delete(key);
      return;
    }
    let left = cost;
    for (let i = entries.at.length - 1; i >= entries.head && left > 0; i--) {
      const take = Math.min(left, entries.cost[i]!);
      entries.cost[i]! -= take;
      entries.total -= take;
      left -= take;
    }
  }

  /** Keys held, live or not yet let go (a key in both generations counts twice). */
  get size(): number {
    return this.generations.size;
  }
}
