import { useEffect } from 'react';
import { useBranding, type Branding } from '../api/bootstrap';
import { t } from '../i18n/t';
import { BrandIcon } from '../ui/icons';

/** Where the accent last applied is remembered, so the next start paints in it at once. */
const REMEMBERED = 'svc-admin.brand-accent';

/** Sets the brand accent on <html> (or takes it away: null) and remembers it for the next start. */
function applyBrandAccent(primary: string | null): void {
  const root = document.documentElement;
  if (primary) {
    root.style.setProperty('--brand-accent', primary);
    root.dataset.brand = '';
  } else {
    root.style.removeProperty('--brand-accent');
    delete root.dataset.brand;
  }
  try {
    if (primary) localStorage.setItem(REMEMBERED, primary);
    else localStorage.removeItem(REMEMBERED);
  } catch {
    // Storage off (private mode): the bootstrap's answer still applies once it arrives.
  }
}

/**
 * The brand accent of the last visit, before the first paint: without it a branded instance
 * showed the built-in accent until the bootstrap arrived, then switched (a flash of the wrong
 * colour on every load). The bootstrap's answer confirms or replaces it.
 */
function applyRememberedBrandAccent(): void {
  let primary: string | null = null;
  try {
    primary = localStorage.getItem(REMEMBERED);
  } catch {
    return;
  }
  // Only a colour as the branding stores it (#rrggbb) is taken back from storage.
  if (primary && /^#[0-9a-fA-F]{6}$/.test(primary)) applyBrandAccent(primary);
}
if (typeof document !== 'undefined') applyRememberedBrandAccent();

/**
 * The branding's primary colour as the accent (decision BR11): `data-brand` on <html> with
 * `--brand-accent` makes styles.css take it as the light theme's accent, unless the person chose
 * an accent of their own (`ownAccent`). The dark theme keeps its light accent shade: a colour
 * that carries white text is too dark to read on a dark page. Until the bootstrap is read the
 * remembered accent stays.
 */
export function useBrandAccent(ownAccent = false): void {
  const branding = useBranding();
  const primary = branding === undefined ? undefined : (branding.colors.primary ?? null);
  useEffect(() => {
    if (primary === undefined) return;
    applyBrandAccent(primary && !ownAccent ? primary : null);
  }, [primary, ownAccent]);
}

/** The `alt` of a decorative image (the name stands beside it). */
export const DECORATIVE = '';

/** The product's name, as the branding sets it (the built-in one until the bootstrap is read). */
export function productName(branding: Branding | undefined): string {
  return branding?.productName ?? t('app.name');
}

/** The logo's address; the ETag in the query makes a new logo a new address for the browser's cache. */
export function logoSrc(logo: NonNullable<Branding['logo']>): string {
  return `${logo.url}?v=${encodeURIComponent(logo.etag.replace(/"/g, ''))}`;
}

/** The product's mark: the branding's logo, or the built-in icon. Decorative: the name stands beside it. */
export function ProductMark({ branding }: { branding: Branding | undefined }) {
  const logo = branding?.logo;
  if (logo) return <img className="product-logo" src={logoSrc(logo)} alt={DECORATIVE} width={logo.width} height={logo.height} />;
  return (
    <span className="product-mark" aria-hidden="true">
      <BrandIcon className="icon" />
    </span>
  );
}
