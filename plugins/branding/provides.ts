import { defineServiceRef } from '../../kernel/api.js';
import type { Branding } from './schemas.js';

export type { Branding } from './schemas.js';
export { brandingSchema } from './schemas.js';

/** What the branding plugin offers others: the branding as GET /branding answers it (bootstrap). */
export interface BrandingProvides {
  view(): Promise<Branding>;
}

export const brandingRef = defineServiceRef<BrandingProvides>('branding');
