import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { API_KEY_PREFIX, API_PREFIX, AppError, type AudienceGate, type Kernel, sessionCookieOf } from '../../../kernel/api.js';
import type { PublicAdminProvides } from '../../public-admin/provides.js';
import type { PublicLimits } from '../limits/policy.js';
import { publicKeyAudience, type PublicCallOptions, type PublicCaller } from '../provides.js';
import { preflightHandler } from './cors.js';
import type { KeyCache } from './key-cache.js';
import { chargeWrite, publicGate } from './gate.js';
import { publicErrorHandler } from './render.js';

export interface PublicHttpDeps {
  admin: PublicAdminProvides;
  keys: KeyCache;
  limits: PublicLimits;
}

/** The origins browser keys may call from; null when SVC_PUBLIC_API_ORIGINS is unset and the public routes are not served. */
function servedOrigins(kernel: Kernel): ReadonlySet<string> | null {
  return kernel.config.publicApiOrigins.length === 0 ? null : new Set(kernel.config.publicApiOrigins);
}

function notServed(): never {
  throw new AppError('NOT_FOUND');
}

/** The instance's own API keys (`adm_sk_…`), as kernel/http/authenticate.ts reads them. */
const ADMIN_KEY = new RegExp(`^Bearer\\s+${API_KEY_PREFIX}\\S+$`, 'i');

/**
 * A staff request on a route that staff may call (D23): a session-only request, or one carrying an
 * admin API key. The route authenticates it (and checks the permission), not the gate.
 */
function staffCall(req: FastifyRequest): boolean {
  const authorization = req.headers.authorization;
  if (authorization === undefined) return sessionCookieOf(req) !== undefined;
  return ADMIN_KEY.test(authorization);
}

/** On the public routes errors render without a request id, and the dashboard's credentialed CORS stays off them. */
function publicShape(kernel: Kernel): Pick<AudienceGate<unknown>, 'errorHandler' | 'ownCors'> {
  return { errorHandler: publicErrorHandler(kernel.meta.helpers, kernel.sandbox.failureLog), ownCors: true };
}

/**
 * Without SVC_PUBLIC_API_ORIGINS the public routes are not served (the seed): they answer once
 * the body is parsed exactly what a path with no route does, even for a malformed body, with the
 * kernel's envelope and CORS as such a path has.
 */
const NOT_SERVED = 'body' as const;

/** The gate of `public-key` (http/gate.ts). */
export function publicKeyGate(kernel: Kernel, deps: PublicHttpDeps): AudienceGate<PublicCaller> {
  const origins = servedOrigins(kernel);
  if (!origins) return { stage: NOT_SERVED, admit: () => notServed };
  const gate = publicGate({ admin: deps.admin, keys: deps.keys, limits: deps.limits, origins, hosts: kernel.hosts });
  return { ...publicShape(kernel), admit: () => gate };
}

/** The gate of `public-key-or-staff`: a staff request passes with no caller; a key's call is charged as the route says. */
export function publicKeyOrStaffGate(kernel: Kernel, deps: PublicHttpDeps): AudienceGate<PublicCaller | null, PublicCallOptions> {
  const origins = servedOrigins(kernel);
  if (!origins) return { stage: NOT_SERVED, admit: () => (req) => (staffCall(req) ? null : notServed()) };
  const gate = publicGate({ admin: deps.admin, keys: deps.keys, limits: deps.limits, origins, hosts: kernel.hosts });
  const charge = chargeWrite(deps.limits);
  return {
    ...publicShape(kernel),
    admit: (options) => {
      if (options?.charge !== 'write') return (req, reply) => (staffCall(req) ? null : gate(req, reply));
      return (req, reply) => {
        if (staffCall(req)) return null;
        const caller = gate(req, reply);
        return caller instanceof Promise ? caller.then(charge) : charge(caller);
      };
    },
  };
}

/** Browsers' preflights for the whole public URL space, served only with SVC_PUBLIC_API_ORIGINS. */
export function installPublicPreflight(app: FastifyInstance, kernel: Kernel): void {
  const origins = servedOrigins(kernel);
  if (!origins) return;
  const { errorHandler } = publicShape(kernel);
  app.options(
    `${API_PREFIX}${publicKeyAudience.under}*`,
    { config: { cors: false } as RouteOptions['config'], errorHandler: errorHandler! },
    preflightHandler(origins),
  );
}
