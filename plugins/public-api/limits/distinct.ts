import { Generations } from './generations.js';

/**
 * How many different values each key asked within a sliding window, in process memory like the
 * other public counters: an address asking availability for one party size after another.
 */
export class DistinctWindow {
  /** key → value → when it was last asked. */
  private readonly seen: Generations<Map<number, number>>;

  constructor(
    readonly windowMs: number,
    readonly max: number,
    private readonly now: () => number,
  ) {
    this.seen = new Generations(windowMs, now());
  }

  /**
   * Records `value` for `key` and answers 0 when it is one of the `max` values the key may hold
   * in the window (a value asked again is free); otherwise whole seconds until the oldest leaves.
   */
  take(key: string, value: number): number {
    const at = this.now();
    const cutoff = at - this.windowMs;
    const seen = this.seen;
    seen.turn(at);
    let values = seen.current.entries.get(key);
    if (!values) {
      // Asked before this generation began (then moved into it, to live on), or not at all.
      values = seen.older.entries.get(key) ?? new Map<number, number>();
      seen.current.entries.set(key, values);
    }
    for (const [v, t] of values) if (t <= cutoff) values.delete(v);
    if (!values.has(value) && values.size >= this.max) {
      const oldest = Math.min(...values.values());
      return Math.max(1, Math.ceil((oldest + this.windowMs - at) / 1000));
    }
    values.set(value, at);
    return 0;
  }

  get size(): number {
    return this.seen.size;
  }
}
