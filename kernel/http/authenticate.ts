import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError, registerErrorCodes } from '../errors.js';
import type { CachedPrincipals } from '../identity/principal-cache.js';
import type { Principal } from '../identity/principal.js';
import { cookiesOf } from './cookies.js';

export const SESSION_COOKIE = 'svc_session';

registerErrorCodes({
  AUTH_SESSION_INVALID: { status: 401, message: 'Your session has ended; sign in again.' },
  AUTH_KEY_INVALID: { status: 401, message: 'The API key is unknown or revoked.' },
});

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface Authenticated {
  principal: Principal;
  via: 'cookie' | 'bearer';
}

/**
 * Finds the caller from `Authorization: Bearer adm_sk_…` or the signed `svc_session` cookie.
 * Returns null when the request carries neither; throws when it carries a bad one, so a
 * revoked key or an ended session never silently falls back to anonymous. The answer comes
 * without an async step when the principal cache holds it (as it does for all but the first
 * request of a key or session): a promise only when the store must be asked.
 */
export function authenticate(req: FastifyRequest, identity: CachedPrincipals, config: Config): Authenticated | null | Promise<Authenticated | null> {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) throw new AppError('AUTH_KEY_INVALID');
    const principal = identity.resolveApiKey(m[1]!);
    return principal instanceof Promise ? principal.then(viaBearer) : viaBearer(principal);
  }
  const raw = sessionCookieOf(req);
  if (raw === undefined) return null;
  const token = cookiesOf(req).open(raw);
  if (token === null) throw new AppError('AUTH_SESSION_INVALID');
  const principal = identity.resolveSession(token);
  return principal instanceof Promise ? principal.then((found) => viaCookie(req, config, found)) : viaCookie(req, config, principal);
}

function viaBearer(principal: Principal | null): Authenticated {
  if (!principal) throw new AppError('AUTH_KEY_INVALID');
  return { principal, via: 'bearer' };
}

function viaCookie(req: FastifyRequest, config: Config, principal: Principal | null): Authenticated {
  if (!principal) throw new AppError('AUTH_SESSION_INVALID');
  if (!SAFE_METHODS.has(req.method) || req.headers.upgrade) checkOrigin(req, config);
  return { principal, via: 'cookie' };
}

/**
 * The session cookie the request carries. Cookies are parsed here, on first use, rather than
 * by a hook on every request: public routes, static files and health checks never read them.
 */
export function sessionCookieOf(req: FastifyRequest): string | undefined {
  return cookiesOf(req).read(req, SESSION_COOKIE);
}

/** The session token the request's cookie carries when its signature holds (whether the session still exists is not asked). */
export function presentedSessionToken(req: FastifyRequest): string | null {
  const raw = sessionCookieOf(req);
  return raw === undefined ? null : cookiesOf(req).open(raw);
}

/** D7: an unsafe request carried by the cookie must come from the instance or a listed origin. */
export function checkOrigin(req: FastifyRequest, config: Config): void {
  const origin = req.headers.origin;
  if (!origin || origin === 'null') throw new AppError('CSRF_REFUSED', { params: { origin: origin ?? null } });
  if (config.corsOrigins.includes(origin)) return;
  if (config.baseUrl && new URL(config.baseUrl).origin === origin) return;
  const self = `${req.protocol}://${req.host}`;
  if (origin === self) return;
  throw new AppError('CSRF_REFUSED', { params: { origin } });
}

export function setSessionCookie(reply: FastifyReply, req: FastifyRequest, token: string, maxAgeMs: number): void {
  cookiesOf(reply).set(reply, SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    signed: true,
    secure: req.protocol === 'https',
    maxAge: Math.floor(maxAgeMs / 1000),
  });
}

export function clearSessionCookie(reply: FastifyReply, req: FastifyRequest): void {
  cookiesOf(reply).clear(reply, SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: req.protocol === 'https' });
}
