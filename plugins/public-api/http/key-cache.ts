import { hash } from 'node:crypto';
import type { PublicAdminProvides, PublicKey } from '../../public-admin/provides.js';

// One-shot hash: no Hash object per request.
const digestOf = (token: string) => hash('sha256', token, 'base64');

/** A revocation elsewhere reaches this replica through onRevoked within seconds; this bounds it regardless. */
export const KEY_TTL_MS = 5_000;

/**
 * Live keys by the SHA-256 of their token, for a few seconds. The control plane tells us at once
 * when a key is revoked, rotated or expires, or the switch goes off (onRevoked), so a revoked
 * key still ends on the very next request here, and within 5 s on other replicas (the seed's
 * promise); a public request then costs no meta-store query for its key.
 */
export class KeyCache {
  private readonly entries = new Map<string, { key: PublicKey; at: number }>();
  /** Stops listening (the control plane polls for other replicas' revocations while anyone listens). */
  readonly close: () => void;

  constructor(
    private readonly admin: PublicAdminProvides,
    private readonly now: () => number,
  ) {
    this.close = admin.onRevoked((keyId) => {
      if (keyId === '*') this.entries.clear();
      else for (const [hash, e] of this.entries) if (e.key.id === keyId) this.entries.delete(hash);
    });
  }

  /** The cached live key, without waiting for anything; undefined when only the store can tell. */
  cached(token: string): PublicKey | undefined {
    const hit = this.entries.get(digestOf(token));
    const at = this.now();
    if (hit && at >= hit.at && at - hit.at < KEY_TTL_MS && (hit.key.expiresAt === null || hit.key.expiresAt > at)) return hit.key;
    return undefined;
  }

  async get(token: string): Promise<PublicKey | null> {
    const hit = this.cached(token);
    if (hit) return hit;
    const digest = digestOf(token);
    const at = this.now();
    this.entries.delete(digest);
    const key = await this.admin.keyForToken(token);
    // Unknown tokens are not kept: guessing must not fill memory.
    if (key) {
      this.entries.set(digest, { key, at });
      if (this.entries.size > 10_000) this.entries.delete(this.entries.keys().next().value!);
    }
    return key;
  }
}
