/**
 * The keys of a sliding-window counter, held in two generations instead of deleted one by one.
 * A map that has as many keys deleted as added (one per caller, under many callers) is rebuilt
 * by V8 again and again, which cost more than the request it limits (decisions PA13); a whole
 * generation is let go instead.
 */
export interface Generation<V> {
  readonly start: number;
  readonly entries: Map<string, V>;
}

const generation = <V>(start: number): Generation<V> => ({ start, entries: new Map() });

export class Generations<V> {
  /** Written now; it supersedes `older` for a key both hold. */
  current: Generation<V>;
  /** The window before: read, never written; let go when `current` has lasted a window. */
  older: Generation<V>;

  constructor(
    readonly windowMs: number,
    start: number,
  ) {
    this.current = generation(start);
    this.older = generation(start);
  }

  /**
   * Starts a new generation once the current one has lasted a window. What the older one holds
   * was written before the current one began, a window ago or more: all of it has left (a value
   * still in use was moved into the current one when it was read).
   */
  turn(at: number): void {
    const age = at - this.current.start;
    if (age < this.windowMs) return;
    this.older = age < 2 * this.windowMs ? this.current : generation(at);
    this.current = generation(at);
  }

  /** Keys held, live or not yet let go (a key in both generations counts twice). */
  get size(): number {
    return this.current.entries.size + this.older.entries.size;
  }
}
