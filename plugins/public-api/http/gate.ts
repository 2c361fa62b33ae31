import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../kernel/errors.js';
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
  /** A listed origin for a browser key; null for a server key. */
  origin: string | null;
}

const callers = new WeakMap<FastifyRequest, PublicCaller>();

export function callerOf(req: FastifyRequest): PublicCaller {
  const caller = callers.get(req);
  // Every public route runs the gate first; a route without it is a wiring mistake.
  if (!caller) throw new AppError('INTERNAL', { cause: new Error('public route reached without the gate') });
  return caller;
}

const BEARER = /^Bearer\s+(adm_(?:pub|srv)_\S+)$/i;

async function keyOf(req: FastifyRequest, keys: KeyCache): Promise<PublicKey> {
  const m = BEARER.exec(req.headers.authorization ?? '');
  const key = m ? await keys.get(m[1]!) : null;
  if (!key) throw new AppError('PUBLIC_KEY_INVALID');
  return key;
}

/**
 * A browser marks a cross-origin request with Origin, and every request with Sec-Fetch-Site.
 * Sec-Fetch-Mode alone proves nothing: Node's own fetch (undici) sends `Sec-Fetch-Mode: cors`
 * from any backend, so it counts only together with Sec-Fetch-Site.
 */
function fromBrowser(req: FastifyRequest): boolean {
  return req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined;
}

function checkOrigin(req: FastifyRequest, key: PublicKey, origins: ReadonlySet<string>): string | null {
  if (key.kind === 'server') {
    if (fromBrowser(req)) throw new AppError('PUBLIC_ORIGIN_REFUSED', { params: { reason: 'server-key-in-browser' } });
    return null;
  }
  const origin = req.headers.origin;
  if (origin === undefined || !origins.has(origin)) throw new AppError('PUBLIC_ORIGIN_REFUSED', { params: { reason: 'origin-not-listed' } });
  return origin;
}

export interface GateDeps {
  admin: PublicAdminProvides;
  keys: KeyCache;
  limits: PublicLimits;
  origins: ReadonlySet<string>;
}

/**
 * Runs on every public route before its input is validated, so these answers hold for any
 * request: CORS headers, the switch (503), the per-address limit, NUL in a parameter, the key
 * (401) and where it is used from (403). Endpoint, method and row checks need the validated
 * input and happen in the handler.
 */
export function publicGate({ admin, keys, limits, origins }: GateDeps) {
  return async function publicGateHook(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    applyCors(req, reply, origins);
    if (!(await admin.state()).enabled) throw new AppError('PUBLIC_API_DISABLED');
    limits.chargeAddress(req.ip);
    refuseNul(req.params, req.query);
    const key = await keyOf(req, keys);
    const origin = checkOrigin(req, key, origins);
    admin.recordUsage(key.id);
    callers.set(req, { key, address: req.ip, origin });
  };
}
