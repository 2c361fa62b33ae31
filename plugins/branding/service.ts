import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { AppError, defineServiceRef, type Kernel, strongEtag } from '../../kernel/api.js';
import { contrastWithWhite, MIN_CONTRAST } from './colors.js';
import { checkLogo, type LogoType } from './logo.js';
import { type Branding, type BrandingInput, isHexColor } from './schemas.js';

export const BRANDING_CHANGED = 'branding.changed';
const SETTINGS_KEY = 'branding';
const DEFAULT_PRODUCT_NAME = 'Admin';

/** The branding as the settings store keeps it (BR1). */
interface StoredBranding {
  productName: string | null;
  primary: string | null;
  signInMessage: string | null;
  logo: { key: string; type: LogoType; width: number; height: number; etag: string; size: number } | null;
}

const EMPTY: StoredBranding = { productName: null, primary: null, signInMessage: null, logo: null };

/**
 * Branding: kept in memory once read (every sign-in page and bootstrap asks for it) and read
 * again after `branding.changed`, which replicas sharing the meta store receive too.
 */
export class BrandingService {
  private cached: Promise<StoredBranding> | null = null;

  constructor(private readonly kernel: Kernel) {
    kernel.events.listen([BRANDING_CHANGED], () => {
      this.cached = null;
    });
  }

  private stored(): Promise<StoredBranding> {
    this.cached ??= this.kernel.settings.get<StoredBranding>(SETTINGS_KEY).then(
      (s) => ({ ...EMPTY, ...(s ?? {}) }),
      (err) => {
        this.cached = null;
        throw err;
      },
    );
    return this.cached;
  }

  async view(): Promise<Branding> {
    const s = await this.stored();
    return {
      productName: s.productName ?? DEFAULT_PRODUCT_NAME,
      colors: { primary: s.primary },
      logo: s.logo ? { url: '/api/v1/branding/logo', type: s.logo.type, width: s.logo.width, height: s.logo.height, etag: s.logo.etag } : null,
      signInMessage: s.signInMessage,
    };
  }

  /** PUT /settings/branding: the fields given change, the others stay. */
  async update(input: BrandingInput): Promise<Branding> {
    const primary = input.colors?.primary;
    if (primary !== undefined && primary !== null) {
      if (!isHexColor(primary)) throw invalid('body.colors.primary', 'color-invalid', 'A colour is written #rrggbb.');
      const ratio = contrastWithWhite(primary);
      if (ratio < MIN_CONTRAST)
        throw invalid(
          'body.colors.primary',
          'color-contrast',
          `White text on ${primary} has a contrast of ${ratio.toFixed(2)}:1; buttons need at least ${MIN_CONTRAST}:1. Choose a darker colour.`,
        );
    }
    const before = await this.stored();
    const next: StoredBranding = {
      ...before,
      ...(input.productName !== undefined ? { productName: input.productName } : {}),
      ...(primary !== undefined ? { primary: primary === null ? null : primary.toLowerCase() } : {}),
      ...(input.signInMessage !== undefined
        ? { signInMessage: input.signInMessage === null || input.signInMessage.trim() === '' ? null : input.signInMessage }
        : {}),
    };
    await this.save(next);
    return this.view();
  }

  /** POST /branding/logo: checked by its bytes, stored in the file store, the old one removed. */
  async setLogo(bytes: Buffer): Promise<Branding> {
    const checked = checkLogo(bytes);
    if ('refused' in checked) throw new AppError('BRANDING_LOGO_INVALID', { message: checked.message, params: { reason: checked.refused } });
    const etag = strongEtag(bytes);
    const key = `branding/logo/${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}`;
    await this.kernel.files.put(key, Readable.from([bytes]));
    const before = await this.stored();
    await this.save({ ...before, logo: { key, type: checked.type, width: checked.width, height: checked.height, etag, size: bytes.length } });
    if (before.logo && before.logo.key !== key) await this.kernel.files.delete(before.logo.key).catch(() => false);
    return this.view();
  }

  /** DELETE /branding/logo; 404 when there is none. */
  async removeLogo(): Promise<Branding> {
    const before = await this.stored();
    if (!before.logo) throw new AppError('NOT_FOUND', { message: 'There is no logo.' });
    await this.save({ ...before, logo: null });
    await this.kernel.files.delete(before.logo.key).catch(() => false);
    return this.view();
  }

  /** The logo's bytes as a stream with what its answer needs, or null. */
  async logo(): Promise<{ type: LogoType; etag: string; size: number; open: () => Promise<Readable | null> } | null> {
    const s = await this.stored();
    if (!s.logo) return null;
    const { key, type, etag, size } = s.logo;
    return { type, etag, size, open: async () => (await this.kernel.files.open(key))?.stream ?? null };
  }

  private async save(next: StoredBranding): Promise<void> {
    await this.kernel.settings.set(SETTINGS_KEY, next);
    this.cached = Promise.resolve(next);
    await this.kernel.events.publish(BRANDING_CHANGED, {}).catch(() => undefined);
  }
}

const invalid = (path: string, code: string, message: string) => new AppError('VALIDATION_FAILED', { issues: [{ path, code, message }] });

export const brandingServiceRef = defineServiceRef<BrandingService>('branding');
