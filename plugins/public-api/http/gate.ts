import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../kernel/errors.js';
import type { HostRoutes } from '../../../kernel/http/host-routes.js';
import type { PublicAdminProvides, PublicKey } from '../../public-admin/provides.js';
import type { PublicLimits } from '../limits/policy.js';
import { applyCors } from './cors.js';
import type { KeyCache } from './key-cache.js';
import { refuseNul } from './nul.js';

/** Who is calling a public route, known once the gate let the request through. */
export interface PublicCaller {
  key: PublicKey;
  /** The client address (SVC_TRUST_PROXY decides whether forwarded headers count). */
  address: string;
  /** A listed origin (or the app's own mapped origin) for a browser key; null for a server key. */
  origin: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the public gate (a request decoration, so every request keeps one shape; see install.ts). */
    publicCaller: PublicCaller | null;
  }
}

export function callerOf(req: FastifyRequest): PublicCaller {
  const caller = req.publicCaller;
  // Every public route runs the gate first; a route without it is a wiring mistake.
  if (!caller) throw new AppError('INTERNAL', { cause: new Error('public route reached without the gate') });
  return caller;
}

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
function passSwitched(deps: GateDeps, req: FastifyRequest): Promise<void> | null {
  const address = req.ip;
  deps.limits.chargeAddress(address);
  refuseNul(req.params, req.query);
  const token = tokenOf(req);
  if (token === null) throw keyInvalid();
  const cached = deps.keys.cached(token);
  if (cached) {
    admit(deps, req, cached, address);
    return null;
  }
  return deps.keys.get(token).then((key) => {
    if (!key) throw keyInvalid();
    admit(deps, req, key, address);
  });
}

function admit(deps: GateDeps, req: FastifyRequest, key: PublicKey, address: string): void {
  const origin = checkOrigin(req, key, deps.origins, deps.hosts);
  deps.admin.recordUsage(key.id);
  req.publicCaller = { key, address, origin };
}

function passGate(deps: GateDeps, req: FastifyRequest, reply: FastifyReply): Promise<void> | null {
  applyCors(req, reply, deps.origins);
  const enabled = deps.admin.enabledNow();
  if (enabled === null)
    return deps.admin.state().then((state) => {
      if (!state.enabled) throw new AppError('PUBLIC_API_DISABLED');
      return passSwitched(deps, req) ?? undefined;
    });
  if (!enabled) throw new AppError('PUBLIC_API_DISABLED');
  return passSwitched(deps, req);
}

/**
 * Runs on every public route before its input is validated, so these answers hold for any
 * request: CORS headers, the switch (503), the per-address limit, NUL in a parameter, the key
 * (401) and where it is used from (403). Endpoint, method and row checks need the validated
 * input and happen in the handler. A callback hook: with the switch and the key cached, as on
 * nearly every request, it answers without a promise or a trip through the microtask queue.
 */
export function publicGate(deps: GateDeps) {
  return function publicGateHook(req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
    let waiting: Promise<void> | null;
    try {
      waiting = passGate(deps, req, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (waiting) waiting.then(() => done(), done);
    else done();
  };
}

/**
 * An app key's call of its app's action is charged as one write to the key's whole budget and
 * to the visitor's share (D27 peaks; decisions AO32), after the gate let it through. The visitor
 * is the address: an action sees no customer session. A staff call (no gate, no caller) is not
 * charged here. A server key has no whole-key budget, as for its writes.
 */
export function chargeAppAction(limits: PublicLimits) {
  return function chargeAppActionHook(req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
    const caller = req.publicCaller;
    if (caller) {
      try {
        limits.charge({
          keyId: caller.key.id,
          kind: caller.key.kind,
          peak: caller.key.appKey?.peak ?? 1,
          visitor: `a:${caller.address}`,
          traffic: 'write',
          endpoint: null,
          rows: 1,
        });
      } catch (err) {
        done(err as Error);
        return;
      }
    }
    done();
  };
}
