import { AppError, type Config, type SettingsStore } from '../../../kernel/api.js';
import type { PublicApiState } from '../provides.js';

export const SWITCH_SETTINGS_KEY = 'public-api';
/** How long a replica may go on with a switch another replica changed (seed: within 5 s). */
export const STATE_TTL_MS = 2_000;

/**
 * The public API switch (D17): off by default, stored in the settings; it deletes nothing. A
 * change here applies to the very next request; other replicas re-read within STATE_TTL_MS.
 */
export class PublicSwitch {
  private cached: { state: PublicApiState; at: number } | null = null;

  constructor(
    private readonly settings: SettingsStore,
    private readonly config: Pick<Config, 'publicApiOrigins'>,
    private readonly now: () => number,
  ) {}

  private get origins(): string[] {
    return [...this.config.publicApiOrigins];
  }

  /** The cached answer while it is fresh (the data plane asks on every request); null otherwise. */
  enabledNow(): boolean | null {
    const hit = this.cached;
    return hit && this.now() - hit.at < STATE_TTL_MS ? hit.state.enabled : null;
  }

  async state(): Promise<PublicApiState> {
    const hit = this.cached;
    if (hit && this.now() - hit.at < STATE_TTL_MS) return { ...hit.state, origins: [...hit.state.origins] };
    const stored = await this.settings.get<{ enabled?: unknown }>(SWITCH_SETTINGS_KEY);
    const state = { enabled: stored?.enabled === true, served: this.origins.length > 0, origins: this.origins };
    this.cached = { state, at: this.now() };
    return { ...state, origins: [...state.origins] };
  }

  async set(enabled: boolean): Promise<{ before: PublicApiState; after: PublicApiState }> {
    this.cached = null;
    const before = await this.state();
    if (enabled && this.origins.length === 0) throw new AppError('PUBLIC_API_NOT_CONFIGURED', { params: { env: 'SVC_PUBLIC_API_ORIGINS' } });
    await this.settings.set(SWITCH_SETTINGS_KEY, { enabled });
    this.cached = null;
    return { before, after: await this.state() };
  }
}
