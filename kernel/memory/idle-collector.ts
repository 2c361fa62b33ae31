import { getHeapSpaceStatistics } from 'node:v8';

/** The young generation at or under this is as small as V8 keeps it (its initial size). */
const SHRUNK_BYTES = 2 * 1024 * 1024;
/** V8's memory reducer acts about 8 s after a full collection; ours wait longer than that. */
const REDUCER_WAIT_MS = 10_000;

function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
}

export interface IdleCollectorOptions {
  /** Default: the `gc` of `--expose-gc`; without it the collector does nothing. */
  gc?: () => void;
  youngBytes?: () => number;
  now?: () => number;
  tickMs?: number;
}

/**
 * Gives memory back once the server has gone quiet (decisions K35). V8 collects only when
 * something allocates, so an idle process keeps what its start or its last burst grew to: the
 * garbage of the old generation, and the young generation at its full 2 × 16 MB. One full
 * collection returns the garbage at once and arms V8's memory reducer, which about 8 s later,
 * if allocation has stayed low, runs the collection that shrinks the young generation. Every
 * full collection postpones the reducer by as much, so this collects once as the server starts
 * listening (the start is the largest burst there is), then only in a quiet spell (two ticks
 * without a request) while the young generation is still grown and no collection of ours
 * happened in the last 10 s.
 *
 * `npm start` runs node with `--expose-gc` for this.
 */
export class IdleCollector {
  /** Requests seen so far; the server bumps it once per request (a plain increment). */
  requests = 0;
  private seenAtLastTick = -1;
  private quietTicks = 0;
  private lastCollectionAt = -Infinity;
  private timer: NodeJS.Timeout | null = null;
  private readonly gc: (() => void) | undefined;
  private readonly youngBytes: () => number;
  private readonly now: () => number;
  private readonly tickMs: number;

  constructor(options: IdleCollectorOptions = {}) {
    this.gc = options.gc ?? (globalThis as { gc?: () => void }).gc;
    this.youngBytes = options.youngBytes ?? youngGenerationBytes;
    this.now = options.now ?? Date.now;
    this.tickMs = options.tickMs ?? 2_000;
  }

  start(): void {
    if (!this.gc || this.timer) return;
    setImmediate(() => this.collect());
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  tick(): void {
    if (this.requests !== this.seenAtLastTick) {
      this.seenAtLastTick = this.requests;
      this.quietTicks = 0;
      return;
    }
    this.quietTicks++;
    if (this.quietTicks < 2 || this.youngBytes() <= SHRUNK_BYTES || this.now() - this.lastCollectionAt < REDUCER_WAIT_MS) return;
    this.collect();
  }

  private collect(): void {
    if (!this.gc) return;
    this.lastCollectionAt = this.now();
    this.gc();
  }
}
