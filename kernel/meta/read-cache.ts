import type { MetaWrites } from './write-watch.js';

/** Another replica's write is seen within this (the rule of public keys, PA3, and principals, K25). */
export const META_READ_TTL_MS = 5_000;

/**
 * What was read from some meta-store tables, kept by key: exact in this process, because any
 * write to one of `tables` empties it (at the statement and again when its transaction ends,
 * kernel/meta/write-watch.ts) and a read begun before such a write is not kept; another
 * replica's write is seen once an entry is `ttlMs` old. Failed reads are not kept. Values are
 * shared between callers: treat them as read-only.
 */
export class MetaReadCache<V extends {} | null> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  private generation = 0;
  readonly close: () => void;

  constructor(
    writes: MetaWrites,
    tables: readonly string[],
    private readonly opts: { ttlMs?: number; max?: number; now?: () => number } = {},
  ) {
    const watched = new Set(tables);
    this.close = writes.on((w) => {
      if (!watched.has(w.table)) return;
      this.generation++;
      this.entries.clear();
    });
  }

  /** Forgets everything, and any read under way: another replica said its data changed (an event). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(key);
    return hit !== undefined ? Promise.resolve(hit) : this.load(key, load);
  }

  /**
   * What `get` would answer without reading, or undefined when it would read: for hot paths that
   * go on without an async step when the answer is at hand (each step costs every request).
   * Values are never undefined.
   */
  peek(key: string): V | undefined {
    const now = (this.opts.now ?? Date.now)();
    const hit = this.entries.get(key);
    return hit && now >= hit.at && now - hit.at < (this.opts.ttlMs ?? META_READ_TTL_MS) ? hit.value : undefined;
  }

  private async load(key: string, load: () => Promise<V>): Promise<V> {
    const now = (this.opts.now ?? Date.now)();
    const generation = this.generation;
    const value = await load();
    if (generation === this.generation) {
      this.entries.delete(key);
      this.entries.set(key, { value, at: now });
      if (this.entries.size > (this.opts.max ?? 1000)) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }
}
