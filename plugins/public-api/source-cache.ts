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
  private readonly entries = new Map<string, { at: number; handle: Promise<SourceHandle> }>();

  constructor(
    private readonly connections: () => ConnectionsProvides,
    private readonly now: () => number,
  ) {}

  async run<T>(connectionId: string, fn: (handle: SourceHandle) => Promise<T>): Promise<T> {
    const at = this.now();
    let hit = this.entries.get(connectionId);
    if (!hit || at < hit.at || at - hit.at >= SOURCE_TTL_MS) {
      hit = { at, handle: this.connections().source(connectionId) };
      this.entries.set(connectionId, hit);
    }
    let handle: SourceHandle;
    try {
      handle = await hit.handle;
    } catch (err) {
      this.entries.delete(connectionId);
      throw err;
    }
    try {
      return await fn(handle);
    } catch (err) {
      if (isRefusal(err)) throw err;
      this.entries.delete(connectionId);
      // Let the connections plugin classify it: unreachable → 503, anything else unchanged.
      return this.connections().withSource(connectionId, () => Promise.reject(err));
    }
  }
}

/** Our own answers (AppError) pass through; only driver errors need the connections plugin's eye. */
function isRefusal(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AppError';
}
