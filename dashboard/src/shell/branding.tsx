import { useEffect } from 'react';
import { useBranding, type Branding } from '../api/bootstrap';
import { t } from '../i18n/t';
import { BrandIcon } from '../ui/icons';

/**
 * The branding's primary colour as the accent (decision BR11): `data-brand` on <html> with
 * `--brand-accent` makes styles.css take it as the light theme's accent, unless the person chose
 * an accent of their own (`ownAccent`). The dark theme keeps its light accent shade: a colour
 * that carries white text is too dark to read on a dark page.
 */
export function useBrandAccent(ownAccent = false): void {
  const primary = useBranding()?.colors.primary ?? null;
  useEffect(() => {
    const root = document.documentElement;
    if (primary && !ownAccent) {
      root.style.setProperty('--brand-accent', primary);
      root.dataset.brand = '';
    } else {
      root.style.removeProperty('--brand-accent');
      delete root.dataset.brand;
    }
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
