/**
 * The planner's row estimates, kept between requests so that a page of a large table costs one
 * round trip: a figure younger than `freshMs` is answered as it is; an older one is answered too,
 * and refreshed in the background (one refresh per key at a time). Only the first request for a
 * table and filter waits for the planner. Bounded: the least recently used figure goes first,
 * so many distinct filters cannot grow it.
 */
export class PlannerEstimates {
  private readonly entries = new Map<string, { rows: number | null; at: number; refreshing: boolean }>();

  constructor(
    private readonly max = 2000,
    private readonly freshMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The figure: at once when one is kept (no async step for the page that asks), else the planner's, awaited. */
  read(key: string, explain: () => Promise<number | null>): number | null | Promise<number | null> {
    const entry = this.entries.get(key);
    if (!entry)
      return explain().then((rows) => {
        this.remember(key, rows);
        return rows;
      });
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (!entry.refreshing && this.now() - entry.at >= this.freshMs) {
      entry.refreshing = true;
      // A failed refresh keeps the old figure: the page it was asked for has already answered.
      void explain()
        .then((rows) => this.remember(key, rows))
        .catch(() => undefined)
        .finally(() => (entry.refreshing = false));
    }
    return entry.rows;
  }

  /** Forgets every figure whose key starts with `prefix` (a connection's, when it is deleted or changed). */
  forget(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(key: string, rows: number | null): void {
    this.entries.delete(key);
    this.entries.set(key, { rows, at: this.now(), refreshing: false });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}
