import type { ConnectionsProvides, SourceHandle } from '../connections/provides.js';

/** As long as an endpoint may outlive an edit of its connection anyway (the control plane's catalog TTL). */
export const SOURCE_TTL_MS = 2_000;

/**
 * Pool handles of the connections behind endpoints, briefly cached: `source()` reads the
 * connection's row from the meta store, which a public read should not pay every time. A
 * failure goes through `withSource` once more, uncached, so a lost database still answers the
 * connections plugin's 503 (and a replaced pool is picked up).
 */
export class SourceCache {
  private readonly entries = new Map<string, { at: number; handle: Promise<SourceHandle>; ready: SourceHandle | null }>();

  constructor(
    private readonly connections: () => ConnectionsProvides,
    private readonly now: () => number,
  ) {}

  /** Runs `fn` on the connection's pool; every error it ends with goes through `fail` (the caller's own refusals for some). */
  run<T>(connectionId: string, fn: (handle: SourceHandle) => Promise<T>, fail: (err: unknown) => never = rethrow): Promise<T> {
    const at = this.now();
    let hit = this.entries.get(connectionId);
    if (!hit || at < hit.at || at - hit.at >= SOURCE_TTL_MS) {
      const entry = { at, handle: this.connections().source(connectionId), ready: null as SourceHandle | null };
      entry.handle.then(
        (handle) => (entry.ready = handle),
        () => undefined,
      );
      hit = entry;
      this.entries.set(connectionId, hit);
    }
    // A handle already in hand is used at once: no extra trip through the microtask queue.
    if (hit.ready) return this.guarded(connectionId, hit.ready, fn, fail);
    return hit.handle.then(
      (handle) => this.guarded(connectionId, handle, fn, fail),
      (err: unknown) => {
        this.entries.delete(connectionId);
        return fail(err);
      },
    );
  }

  private guarded<T>(connectionId: string, handle: SourceHandle, fn: (handle: SourceHandle) => Promise<T>, fail: (err: unknown) => never): Promise<T> {
    let running: Promise<T>;
    try {
      running = fn(handle);
    } catch (err) {
      running = Promise.reject(err);
    }
    // One handler for every error (no second `.catch` after this one on every read).
    return running.catch((err: unknown) => {
      if (isRefusal(err)) return fail(err);
      this.entries.delete(connectionId);
      // Let the connections plugin classify it: unreachable → 503, anything else unchanged.
      return this.connections()
        .withSource(connectionId, () => Promise.reject(err))
        .catch(fail);
    });
  }
}

const rethrow = (err: unknown): never => {
  throw err;
};

/** Our own answers (AppError) pass through; only driver errors need the connections plugin's eye. */
function isRefusal(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AppError';
}
