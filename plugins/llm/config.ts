import { z } from 'zod';
import { AppError, type Kernel } from '../../kernel/api.js';
import { checkedAddresses, parseBaseUrl } from './outbound.js';
import type { ProviderSettings } from './provider.js';
import { DEFAULT_LIMITS, limitsSchema, LLM_MODES, type ConfigInput, type ConfigView, type Limits } from './schemas.js';

export const LLM_SETTINGS_KEY = 'llm';

/** What the settings store keeps: the key and the header values sealed with `kernel.secrets('llm')`. */
const storedSchema = z.object({
  mode: z.enum(LLM_MODES),
  provider: z
    .object({
      baseUrl: z.string(),
      model: z.string(),
      apiKeySealed: z.string().nullable(),
      headers: z.array(z.object({ name: z.string(), valueSealed: z.string() })),
    })
    .nullable(),
  limits: limitsSchema,
});
export type StoredConfig = z.infer<typeof storedSchema>;

const EMPTY: StoredConfig = { mode: 'off', provider: null, limits: DEFAULT_LIMITS };

export class LlmConfigStore {
  constructor(private readonly kernel: Kernel) {}

  private get box() {
    return this.kernel.secrets('llm');
  }

  async stored(): Promise<StoredConfig> {
    const raw = await this.kernel.settings.get<unknown>(LLM_SETTINGS_KEY);
    if (raw && typeof raw === 'object') {
      const merged = { ...(raw as object), limits: { ...DEFAULT_LIMITS, ...((raw as { limits?: object }).limits ?? {}) } };
      const parsed = storedSchema.safeParse(merged);
      if (parsed.success) return parsed.data;
    }
    return EMPTY;
  }

  view(s: StoredConfig): ConfigView {
    return {
      mode: s.mode,
      provider: s.provider
        ? { baseUrl: s.provider.baseUrl, model: s.provider.model, apiKeySet: s.provider.apiKeySealed !== null, headers: s.provider.headers.map((h) => h.name) }
        : null,
      limits: s.limits,
    };
  }

  async limits(): Promise<Limits> {
    return (await this.stored()).limits;
  }

  /**
   * PUT /llm/config: the base URL checked by the LLM outbound policy (LL2); the key and header
   * values sealed; `provider` absent keeps it, null removes it. Mode `provider` needs one.
   */
  async update(input: ConfigInput): Promise<{ view: ConfigView; changed: string[] }> {
    const prior = await this.stored();
    let provider = prior.provider;
    const changed: string[] = [];
    if (input.provider === null) {
      if (provider) changed.push('provider');
      provider = null;
    } else if (input.provider !== undefined) {
      const p = input.provider;
      const { url, host } = parseBaseUrl(p.baseUrl);
      await checkedAddresses(host, this.kernel.config.networkFeatures);
      const baseUrl = url.toString().replace(/\/+$/, '');
      const apiKeySealed = p.apiKey === undefined ? (prior.provider?.apiKeySealed ?? null) : p.apiKey === null ? null : this.box.encrypt(p.apiKey);
      let headers = prior.provider?.headers ?? [];
      if (p.headers !== undefined) {
        const next: Array<{ name: string; valueSealed: string }> = [];
        for (const [name, value] of Object.entries(p.headers)) {
          if (value !== null) next.push({ name, valueSealed: this.box.encrypt(value) });
          else {
            const kept = headers.find((h) => h.name.toLowerCase() === name.toLowerCase());
            if (!kept)
              throw new AppError('VALIDATION_FAILED', {
                issues: [{ path: `body.provider.headers.${name}`, code: 'custom', message: 'No stored value to keep for this header: give one.' }],
              });
            next.push(kept);
          }
        }
        headers = next;
        changed.push('headers');
      }
      if (baseUrl !== prior.provider?.baseUrl) changed.push('baseUrl');
      if (p.model !== prior.provider?.model) changed.push('model');
      if (p.apiKey !== undefined) changed.push('apiKey');
      provider = { baseUrl, model: p.model, apiKeySealed, headers };
    }
    if (input.mode === 'provider' && !provider) {
      throw new AppError('VALIDATION_FAILED', {
        issues: [{ path: 'body.provider', code: 'required', message: 'Mode provider needs a provider (base URL and model).' }],
      });
    }
    if (input.mode !== prior.mode) changed.push('mode');
    const limits = { ...prior.limits, ...(input.limits ?? {}) };
    if (JSON.stringify(limits) !== JSON.stringify(prior.limits)) changed.push('limits');
    const next: StoredConfig = { mode: input.mode, provider, limits };
    await this.kernel.settings.set(LLM_SETTINGS_KEY, next);
    return { view: this.view(next), changed };
  }

  /** The provider as a call needs it, keys unsealed; 409 LLM_NOT_CONFIGURED unless the mode is provider. */
  async provider(): Promise<ProviderSettings & { mode: StoredConfig['mode'] }> {
    const s = await this.stored();
    if (s.mode !== 'provider' || !s.provider) throw new AppError('LLM_NOT_CONFIGURED');
    return this.settingsOf(s);
  }

  settingsOf(s: StoredConfig): ProviderSettings & { mode: StoredConfig['mode'] } {
    const p = s.provider!;
    return {
      mode: s.mode,
      baseUrl: p.baseUrl,
      model: p.model,
      apiKey: p.apiKeySealed ? this.box.decrypt(p.apiKeySealed) : null,
      headers: Object.fromEntries(p.headers.map((h) => [h.name, this.box.decrypt(h.valueSealed)])),
      timeoutMs: s.limits.timeoutMs,
      networkFeatures: this.kernel.config.networkFeatures,
    };
  }
}
