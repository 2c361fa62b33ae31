export interface ProgressValue {
  progress: number | null;
  message: string | null;
}

/** done/total as 0..1; null when the total is unknown or unusable. */
export function fraction(done: number, total: number | null): number | null {
  if (total === null || !Number.isFinite(total) || total <= 0 || !Number.isFinite(done)) return null;
  return Math.min(1, Math.max(0, done / total));
}

/**
 * Keeps a handler's progress reports to one write per `throttleMs`: a report inside the window
 * is held and written when the window ends (the latest one wins), so the stored value and the
 * last event always show where the job got to. Writes run one at a time, in order.
 */
export class ProgressThrottle {
  private pending: ProgressValue | null = null;
  private lastWrite = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly throttleMs: number,
    /** Must not throw: failures are the writer's to log. */
    private readonly write: (value: ProgressValue) => Promise<void>,
    public current: ProgressValue,
  ) {}

  report(done: number, total: number | null, message?: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.current = { progress: fraction(done, total), message: message === undefined ? this.current.message : String(message).slice(0, 500) };
    this.pending = this.current;
    const wait = this.lastWrite + this.throttleMs - Date.now();
    if (wait <= 0) return this.flush();
    this.timer ??= setTimeout(() => void this.flush(), wait);
    return Promise.resolve();
  }

  /** No write after this: the job's final write carries the last value. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.chain = this.chain.then(async () => {
      const value = this.pending;
      if (this.closed || !value) return;
      this.pending = null;
      this.lastWrite = Date.now();
      await this.write(value);
    });
    return this.chain;
  }
}
