import type { Logger } from '../../../kernel/api.js';
import type { PublicSwitch } from '../switch/switch.js';
import type { KeyStore } from './keys.js';

/** How often a replica looks for keys revoked elsewhere while someone caches keys (seed: within 5 s). */
export const REVOCATION_POLL_MS = 2_000;

/**
 * Who hears of revoked keys (PublicAdminProvides.onRevoked): a key id when a key is revoked,
 * rotated, suspended or has just expired, '*' when the switch goes off. This replica's changes
 * reach the listeners at once; another replica's by polling the store (a floor of
 * REVOCATION_POLL_MS, like the event bridge's): a bus subscriber of our own would count as a
 * client connection. Polls only while someone listens.
 */
export class RevocationListeners {
  private readonly listeners = new Set<(keyId: string) => void>();
  private poller: NodeJS.Timeout | null = null;
  private polledAt = 0;
  private lastEnabled: boolean | null = null;

  constructor(
    private readonly keys: Pick<KeyStore, 'changedSince'>,
    private readonly publicSwitch: Pick<PublicSwitch, 'state'>,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  emit(keyId: string): void {
    for (const l of this.listeners) {
      try {
        l(keyId);
      } catch (err) {
        this.log.warn({ err: { message: (err as Error).message } }, 'public key revocation listener failed');
      }
    }
  }

  /** The switch was set here: off reaches every listener as '*' at once. */
  switched(enabled: boolean): void {
    this.lastEnabled = enabled;
    if (!enabled) this.emit('*');
  }

  add(listener: (keyId: string) => void): () => void {
    this.listeners.add(listener);
    this.startPolling();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.poller) {
        clearInterval(this.poller);
        this.poller = null;
      }
    };
  }

  private startPolling(): void {
    if (this.poller) return;
    this.polledAt = this.now();
    this.poller = setInterval(() => void this.poll(), REVOCATION_POLL_MS).unref();
  }

  private async poll(): Promise<void> {
    const since = this.polledAt - REVOCATION_POLL_MS; // overlap: a write can commit after its timestamp
    this.polledAt = this.now();
    try {
      for (const id of await this.keys.changedSince(since)) this.emit(id);
      const { enabled } = await this.publicSwitch.state();
      if (this.lastEnabled === true && !enabled) this.emit('*');
      this.lastEnabled = enabled;
    } catch (err) {
      const message = (err as Error).message;
      // The app closed under us (its close hook cannot reach this service): stop for good.
      if (/destroyed/.test(message) && this.poller) {
        clearInterval(this.poller);
        this.poller = null;
        return;
      }
      this.log.debug({ err: { message } }, 'public key revocation poll failed');
    }
  }

  close(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
    this.listeners.clear();
  }
}
