/**
 * What the public API offers other plugins: the audiences of its gate (decisions K47). A route
 * of a plugin that requires 'public-api' declares one of them, and the kernel puts it behind
 * the public gate (key, origin, address, switch, limits) with its caller typed as below.
 */

import { defineAudience } from '../../kernel/api.js';
import type { PublicKey } from '../public-admin/provides.js';

export const PUBLIC_API = 'public-api';

/** Who is calling a public route, known once the gate let the request through. */
export interface PublicCaller {
  key: PublicKey;
  /** The client address (SVC_TRUST_PROXY decides whether forwarded headers count). */
  address: string;
  /** A listed origin (or the app's own mapped origin) for a browser key; null for a server key. */
  origin: string | null;
}

/** The public API's URL space (relative to /api/v1): every route there has one of its audiences. */
const UNDER = '/public/';

/** Callable with a public key alone. */
export const publicKeyAudience = defineAudience<PublicCaller>({ name: 'public-key', provider: PUBLIC_API, under: UNDER });

/** What a route of `public-key-or-staff` tells the gate: `charge: 'write'` counts each key's call as one write (AO32). */
export interface PublicCallOptions {
  charge?: 'write';
}

/**
 * Callable with a public key, or by staff (D23): a session-only request, or one with an admin API
 * key (`adm_sk_…`), reaches the handler with a null caller, for the route to authenticate as staff.
 */
export const publicKeyOrStaffAudience = defineAudience<PublicCaller | null, PublicCallOptions>({
  name: 'public-key-or-staff',
  provider: PUBLIC_API,
  under: UNDER,
});
