/**
 * Weighted sliding-window log in process memory (the seed's counters are per process). Unlike
 * the kernel's SlidingWindowCounter it takes a cost (a batch counts one per row against an
 * endpoint limit) and gives a charge back (refused requests do not count toward the
 * browser-key whole-key limit).
 */
interface Log {
  at: number[];
  cost: number[];
  total: number;
}

export class WeightedWindow {
  private readonly logs = new Map<string, Log>();
  private writes = 0;

  constructor(
    readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  private prune(key: string, at: number): Log | undefined {
    const log = this.logs.get(key);
    if (!log) return undefined;
    const cutoff = at - this.windowMs;
    let i = 0;
    while (i < log.at.length && log.at[i]! <= cutoff) log.total -= log.cost[i++]!;
    if (i > 0) {
      log.at.splice(0, i);
      log.cost.splice(0, i);
    }
    if (log.at.length === 0) {
      this.logs.delete(key);
      return undefined;
    }
    return log;
  }

  used(key: string): number {
    return this.prune(key, this.now())?.total ?? 0;
  }

  /**
   * Whole seconds until `cost` more fit under `limit`; 0 when they fit now. A cost larger than
   * the limit never fits: the answer is the whole window, the most any caller should wait.
   */
  wait(key: string, cost: number, limit: number): number {
    const at = this.now();
    const log = this.prune(key, at);
    const used = log?.total ?? 0;
    if (used + cost <= limit) return 0;
    if (cost > limit || !log) return Math.ceil(this.windowMs / 1000);
    let excess = used + cost - limit;
    for (let i = 0; i < log.at.length; i++) {
      excess -= log.cost[i]!;
      if (excess <= 0) return Math.max(1, Math.ceil((log.at[i]! + this.windowMs - at) / 1000));
    }
    return Math.ceil(this.windowMs / 1000);
  }

  add(key: string, cost: number): void {
    const at = this.now();
    const log = this.prune(key, at) ?? { at: [], cost: [], total: 0 };
    const last = log.at.length - 1;
    if (last >= 0 && log.at[last] === at) log.cost[last]! += cost;
    else {
      log.at.push(at);
      log.cost.push(cost);
    }
    log.total += cost;
    this.logs.set(key, log);
    // Keys nobody asks about again would otherwise stay for the life of the process.
    if (++this.writes % 2000 === 0) for (const k of [...this.logs.keys()]) this.prune(k, at);
  }

  /** Takes back `cost` from the newest entries (the request it was charged for was refused). */
  refund(key: string, cost: number): void {
    const log = this.prune(key, this.now());
    if (!log) return;
    let left = cost;
    for (let i = log.at.length - 1; i >= 0 && left > 0; i--) {
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
