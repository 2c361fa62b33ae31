import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Admit, AppError, type HostRoutes } from '../../../kernel/api.js';
import type { PublicAdminProvides, PublicKey } from '../../public-admin/provides.js';
import type { PublicLimits } from '../limits/policy.js';
import type { PublicCaller } from '../provides.js';
import { applyCors } from './cors.js';
import type { KeyCache } from './key-cache.js';
import { refuseNul } from './nul.js';

export type { PublicCaller } from '../provides.js';

const BEARER = /^Bearer\s+(adm_(?:pub|srv)_\S+)$/i;

function tokenOf(req: FastifyRequest): string | null {
  const m = BEARER.exec(req.headers.authorization ?? '');
  return m ? m[1]! : null;
}

/**
 * A browser marks a cross-origin request with Origin, and every request with Sec-Fetch-Site.
 * Sec-Fetch-Mode alone proves nothing: Node's own fetch (undici) sends `Sec-Fetch-Mode: cors`
 * from any backend, so it counts only together with Sec-Fetch-Site.
 */
function fromBrowser(req: FastifyRequest): boolean {
  return req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined;
}

/**
 * An app's own page on the host name mapped to it (D28) is the app key's home: its origin is
 * admitted for that key without being listed. A browser names it in Origin (any non-GET fetch
 * does); a same-origin GET carries no Origin, and is marked `Sec-Fetch-Site: same-origin` over
 * https. Over plain http browsers send no fetch metadata either, so there the Referer (the
 * kernel's `Referrer-Policy: same-origin` keeps it for same-origin requests) names the page.
 */
function mappedOrigin(req: FastifyRequest, key: PublicKey, hosts: HostRoutes): string | null {
  const route = key.appKey ? hosts.match(req.headers.host) : null;
  if (!route || route.owner !== key.appKey!.addonKey) return null;
  // A name mapped to one instance's page (D28) is that instance's key's home, not its siblings'.
  const own = (id: string | null | undefined) => (id === undefined || id === null || id === 'default' ? null : id);
  if (own(route.detail?.['instance']) !== own(key.appKey!.instance)) return null;
  const host = req.headers.host!.toLowerCase();
  const ours = (origin: string) => origin === `http://${host}` || origin === `https://${host}`;
  const origin = req.headers.origin;
  if (origin !== undefined) return ours(origin) ? origin : null;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' ? `${req.protocol}://${host}` : null;
  const referer = originOf(req.headers.referer);
  return referer !== null && ours(referer) ? referer : null;
}

function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

function checkOrigin(req: FastifyRequest, key: PublicKey, origins: ReadonlySet<string>, hosts: HostRoutes): string | null {
  if (key.kind === 'server') {
    if (fromBrowser(req)) throw new AppError('PUBLIC_ORIGIN_REFUSED', { params: { reason: 'server-key-in-browser' } });
    return null;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origins.has(origin)) return origin;
  const own = mappedOrigin(req, key, hosts);
  if (own === null) throw new AppError('PUBLIC_ORIGIN_REFUSED', { params: { reason: 'origin-not-listed' } });
  return own;
}

export interface GateDeps {
  admin: PublicAdminProvides;
  keys: KeyCache;
  limits: PublicLimits;
  origins: ReadonlySet<string>;
  /** The kernel's mapped host names (D28), whose owner app's key is admitted from them. */
  hosts: HostRoutes;
}

function keyInvalid(): AppError {
  return new AppError('PUBLIC_KEY_INVALID');
}

/** The checks after the switch; a promise only when the key is not cached (the store must answer). */
function passSwitched(deps: GateDeps, req: FastifyRequest): PublicCaller | Promise<PublicCaller> {
  const address = req.ip;
  deps.limits.chargeAddress(address);
  refuseNul(req.params, req.query);
  const token = tokenOf(req);
  if (token === null) throw keyInvalid();
  const cached = deps.keys.cached(token);
  if (cached) return admit(deps, req, cached, address);
  return deps.keys.get(token).then((key) => {
    if (!key) throw keyInvalid();
    return admit(deps, req, key, address);
  });
}

function admit(deps: GateDeps, req: FastifyRequest, key: PublicKey, address: string): PublicCaller {
  const origin = checkOrigin(req, key, deps.origins, deps.hosts);
  deps.admin.recordUsage(key.id);
  return { key, address, origin };
}

function passGate(deps: GateDeps, req: FastifyRequest, reply: FastifyReply): PublicCaller | Promise<PublicCaller> {
  applyCors(req, reply, deps.origins);
  const enabled = deps.admin.enabledNow();
  if (enabled === null)
    return deps.admin.state().then((state) => {
      if (!state.enabled) throw new AppError('PUBLIC_API_DISABLED');
      return passSwitched(deps, req);
    });
  if (!enabled) throw new AppError('PUBLIC_API_DISABLED');
  return passSwitched(deps, req);
}

/**
 * Runs on every route of the public audiences before its input is validated, so these answers
 * hold for any request: CORS headers, the switch (503), the per-address limit, NUL in a
 * parameter, the key (401) and where it is used from (403). Endpoint, method and row checks need
 * the validated input and happen in the handler. With the switch and the key cached, as on
 * nearly every request, it answers the caller without a promise (the kernel's hook then lets the
 * request on without a trip through the microtask queue).
 */
export function publicGate(deps: GateDeps): Admit<PublicCaller> {
  return (req, reply) => passGate(deps, req, reply);
}

/**
 * An app key's call of its app's action is charged as one write to the key's whole budget and
 * to the visitor's share (D27 peaks; decisions AO32), after the gate let it through: routes of
 * `public-key-or-staff` that say `charge: 'write'`. The visitor is the address: an action sees
 * no customer session. A staff call (no gate, no caller) is not charged here. A server key has
 * no whole-key budget, as for its writes.
 */
export function chargeWrite(limits: PublicLimits) {
  return (caller: PublicCaller): PublicCaller => {
    limits.charge({
      keyId: caller.key.id,
      kind: caller.key.kind,
      peak: caller.key.appKey?.peak ?? 1,
      visitor: `a:${caller.address}`,
      traffic: 'write',
      endpoint: null,
      rows: 1,
    });
    return caller;
  };
}
