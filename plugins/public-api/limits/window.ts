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
 * public API sees once) just its time, so a window of many one-off callers holds one number
 * each instead of three objects for the collector to trace.
 */
type Entries = Log | number;

const totalOf = (e: Entries | undefined) => (e === undefined ? 0 : typeof e === 'number' ? 1 : e.total);

export class WeightedWindow {
  private readonly logs = new Map<string, Entries>();
  private writes = 0;

  constructor(
    readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  private prune(key: string, at: number): Entries | undefined {
    const log = this.logs.get(key);
    if (log === undefined) return undefined;
    const cutoff = at - this.windowMs;
    if (typeof log === 'number') {
      if (log > cutoff) return log;
      this.logs.delete(key);
      return undefined;
    }
    let i = log.head;
    while (i < log.at.length && log.at[i]! <= cutoff) log.total -= log.cost[i++]!;
    if (i === log.at.length) {
      this.logs.delete(key);
      return undefined;
    }
    // A busy key holds an entry per millisecond of the window: moving them all on every request
    // would cost more than the request, so the front is only cut off now and then.
    if (i >= COMPACT_AFTER && i * 2 >= log.at.length) {
      log.at.splice(0, i);
      log.cost.splice(0, i);
      i = 0;
    }
    log.head = i;
    return log;
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

  private waitFor(entries: Entries | undefined, at: number, cost: number, limit: number): number {
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
    const log = this.prune(key, at);
    const wait = this.waitFor(log, at, cost, limit);
    if (wait === 0) this.addAt(key, cost, at, log);
    return wait;
  }

  private addAt(key: string, cost: number, at: number, entries: Entries | undefined): void {
    const found = typeof entries === 'number' ? { at: [entries], cost: [1], head: 0, total: 1 } : entries;
    if (found) {
      if (found !== entries) this.logs.set(key, found);
      const last = found.at.length - 1;
      const previous = last >= found.head ? found.at[last]! : -Infinity;
      if (previous === at) found.cost[last]! += cost;
      else {
        found.at.push(at);
        found.cost.push(cost);
      }
      found.total += cost;
      // Re-inserted, so the map stays in order of last write (to the second) and the sweep can
      // stop at the first live key; a busy key is not moved on every single write.
      if (at - previous >= 1000) {
        this.logs.delete(key);
        this.logs.set(key, found);
      }
    } else {
      this.logs.set(key, cost === 1 ? at : { at: [at], cost: [cost], head: 0, total: cost });
    }
    if (++this.writes % 256 === 0) this.sweep(at);
  }

  /**
   * Drops the logs whose newest entry has left the window: keys nobody asks about again would
   * otherwise stay for the life of the process. Oldest writes come first (to a second), so this
   * reads little more than it drops; a key out of order, or a clock set back, only delays it
   * (prune() still answers exactly).
   */
  private sweep(at: number): void {
    const cutoff = at - this.windowMs;
    for (const [key, log] of this.logs) {
      const newest = typeof log === 'number' ? log : log.at[log.at.length - 1]!;
      if (newest > cutoff) return;
      this.logs.delete(key);
    }
  }

  /** Takes back `cost` from the newest entries (the request it was charged for was refused). */
  refund(key: string, cost: number): void {
    const log = this.prune(key, this.now());
    if (log === undefined || cost <= 0) return;
    if (typeof log === 'number') {
      this.logs.delete(key);
      return;
    }
    let left = cost;
    for (let i = log.at.length - 1; i >= log.head && left > 0; i--) {
      const take = Math.min(left, log.cost[i]!);
      log.cost[i]! -= take;
      log.total -= take;
      left -= take;
    }
  }

  get size(): number {
    return this.logs.size;
  }
}
