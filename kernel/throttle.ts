/**
 * Counts events per key in a sliding window, in process memory (counters are per process,
 * as the seed's limits are). Used for login throttling (D8) and other per-key limits.
 */
export class SlidingWindowCounter {
  private readonly hits = new Map<string, number[]>();
  /** Events under way that count against the limit until they are recorded or released. */
  private readonly held = new Map<string, number>();
  private sweeps = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private live(key: string, at: number): number[] {
    const list = this.hits.get(key);
    if (!list) return [];
    const cutoff = at - this.windowMs;
    let i = 0;
    while (i < list.length && list[i]! <= cutoff) i++;
    if (i > 0) list.splice(0, i);
    if (list.length === 0) this.hits.delete(key);
    return list;
  }

  /** Seconds until the key is under its limit again (events held count); 0 when it is under now. */
  retryAfter(key: string): number {
    const at = this.now();
    const list = this.live(key, at);
    const held = this.held.get(key) ?? 0;
    if (list.length + held < this.limit) return 0;
    // Only held events stand in the way: they end within moments (recorded or released).
    if (list.length < this.limit) return 1;
    return Math.max(1, Math.ceil((list[list.length - this.limit]! + this.windowMs - at) / 1000));
  }

  /**
   * Counts an event that is under way against the limit until `release`: a caller that checks
   * `retryAfter` and holds in the same tick (nothing awaited between) cannot be overtaken by
   * concurrent callers, so no more than the limit are ever under way or recorded together.
   */
  hold(key: string): void {
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
  }

  release(key: string): void {
    const n = (this.held.get(key) ?? 0) - 1;
    if (n > 0) this.held.set(key, n);
    else this.held.delete(key);
  }

  record(key: string): void {
    const at = this.now();
    const list = this.live(key, at);
    list.push(at);
    this.hits.set(key, list);
    if (++this.sweeps % 1000 === 0) for (const k of [...this.hits.keys()]) this.live(k, at);
  }

  reset(key: string): void {
    this.hits.delete(key);
  }
}
