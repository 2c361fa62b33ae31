import type { WidgetResult } from './schemas.js';

/** How long a computed result answers the same statement again (WD6; SVC_WIDGET_CACHE_MS, 0: never). */
export const RESULT_TTL_MS = 10_000;
/** Results kept at most; the oldest go first. */
export const RESULT_MAX_ENTRIES = 500;

interface Entry {
  connectionId: string;
  table: string;
  /** When the database answered; null while it is computing. */
  computedAt: number | null;
  elapsedMs: number;
  value: Promise<WidgetResult>;
}

export interface CachedAnswer {
  result: WidgetResult;
  /** When the database computed it (D3 ms). */
  computedAt: number;
  /** The database's time for it (the first asker's). */
  elapsedMs: number;
  cached: boolean;
}

/**
 * Widget results by their checked plan (WD6): callers asking the same statement while it runs
 * share that one run, and for RESULT_TTL_MS after it get its answer. The plan is built for the
 * caller after every permission check, and holds everything the statement depends on (table,
 * columns, the page's and the caller's filters), so two callers share a result only when they
 * would run the very same statement. Per process: another replica computes its own.
 */
export class ResultCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = RESULT_TTL_MS,
    private readonly maxEntries = RESULT_MAX_ENTRIES,
  ) {}

  /** `fresh`: a kept result is not used (a run under way is still joined: it started moments ago). */
  async get(key: string, scope: { connectionId: string; table: string; fresh?: boolean }, compute: () => Promise<WidgetResult>): Promise<CachedAnswer> {
    if (this.ttlMs === 0) {
      const started = performance.now();
      const result = await compute();
      return { result, computedAt: this.now(), elapsedMs: Math.round((performance.now() - started) * 10) / 10, cached: false };
    }
    const found = this.entries.get(key);
    if (found && (found.computedAt === null || (!scope.fresh && this.now() - found.computedAt < this.ttlMs))) {
      const result = await found.value;
      return { result, computedAt: found.computedAt ?? this.now(), elapsedMs: found.elapsedMs, cached: true };
    }
    const started = performance.now();
    const entry: Entry = { connectionId: scope.connectionId, table: scope.table, computedAt: null, elapsedMs: 0, value: compute() };
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.trim();
    try {
      const result = await entry.value;
      entry.computedAt = this.now();
      entry.elapsedMs = Math.round((performance.now() - started) * 10) / 10;
      return { result, computedAt: entry.computedAt, elapsedMs: entry.elapsedMs, cached: false };
    } catch (err) {
      // A failure is never kept: the next caller asks the database again.
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw err;
    }
  }

  /** Rows of a table changed through the API, or its connection's schema: its results go (table omitted: the whole connection's). */
  forget(connectionId: string, table?: string): void {
    for (const [key, e] of this.entries) if (e.connectionId === connectionId && (table === undefined || e.table === table)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  private trim(): void {
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
