/**
 * How many different values each key asked within a sliding window, in process memory like the
 * other public counters: an address asking availability for one party size after another.
 */
export class DistinctWindow {
  /** key → value → when it was last asked. A key is re-inserted on every ask, so the map runs oldest first. */
  private readonly seen = new Map<string, Map<number, number>>();
  private asks = 0;

  constructor(
    readonly windowMs: number,
    readonly max: number,
    private readonly now: () => number,
  ) {}

  /**
   * Records `value` for `key` and answers 0 when it is one of the `max` values the key may hold
   * in the window (a value asked again is free); otherwise whole seconds until the oldest leaves.
   */
  take(key: string, value: number): number {
    const at = this.now();
    const cutoff = at - this.windowMs;
    const values = this.seen.get(key) ?? new Map<number, number>();
    for (const [v, t] of values) if (t <= cutoff) values.delete(v);
    if (!values.has(value) && values.size >= this.max) {
      const oldest = Math.min(...values.values());
      return Math.max(1, Math.ceil((oldest + this.windowMs - at) / 1000));
    }
    values.set(value, at);
    this.seen.delete(key);
    this.seen.set(key, values);
    if (++this.asks % 256 === 0) this.sweep(cutoff);
    return 0;
  }

  /** Drops keys whose every value has left the window; the oldest keys come first. */
  private sweep(cutoff: number): void {
    for (const [key, values] of this.seen) {
      if (Math.max(...values.values()) > cutoff) return;
      this.seen.delete(key);
    }
  }

  get size(): number {
    return this.seen.size;
  }
}
