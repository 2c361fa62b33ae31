import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../../../kernel/errors.js';
import { API_PREFIX } from '../../../kernel/http/routes.js';
import type { Kernel } from '../../../kernel/kernel-services.js';
import type { PublicAdminProvides } from '../../public-admin/provides.js';
import type { PublicLimits } from '../limits/policy.js';
import { preflightHandler } from './cors.js';
import type { KeyCache } from './key-cache.js';
import { publicGate } from './gate.js';
import { publicErrorHandler } from './render.js';

export const PUBLIC_PREFIX = `${API_PREFIX}/public/`;

type Hooks = NonNullable<RouteOptions['onRequest']>;
type RequestHook =
  ((req: FastifyRequest, reply: FastifyReply) => Promise<void>) | ((req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void);

function withHook(existing: RouteOptions['onRequest'] | RouteOptions['preValidation'], hook: RequestHook): Hooks {
  const list: unknown[] = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  return [...list, hook] as Hooks;
}

async function notServed(): Promise<void> {
  throw new AppError('NOT_FOUND');
}

/**
 * Wraps the contract routes under /api/v1/public/ as they are mounted (onRoute): the gate runs
 * before validation, errors render without a request id, and the dashboard's CORS stays off
 * them. Without SVC_PUBLIC_API_ORIGINS the routes answer exactly what an unknown path does.
 */
export function installPublicHttp(app: FastifyInstance, kernel: Kernel, deps: { admin: PublicAdminProvides; keys: KeyCache; limits: PublicLimits }): void {
  // Declared up front: a property added to each request later would give requests a new shape.
  app.decorateRequest('publicCaller', null);
  const isPublic = (opts: RouteOptions) => opts.url.startsWith(PUBLIC_PREFIX);
  if (kernel.config.publicApiOrigins.length === 0) {
    // After body parsing, as for a path with no route at all: even a malformed body answers alike.
    app.addHook('onRoute', (opts) => {
      if (isPublic(opts)) opts.preValidation = withHook(opts.preValidation, notServed) as RouteOptions['preValidation'];
    });
    return;
  }
  const origins = new Set(kernel.config.publicApiOrigins);
  const gate = publicGate({ admin: deps.admin, keys: deps.keys, limits: deps.limits, origins });
  const errorHandler = publicErrorHandler(kernel.meta.helpers);
  app.addHook('onRoute', (opts) => {
    if (!isPublic(opts)) return;
    // @fastify/cors reads this per route: the dashboard's credentialed CORS never answers here.
    opts.config = { ...opts.config, cors: false } as RouteOptions['config'];
    opts.errorHandler = errorHandler;
    if (opts.method !== 'OPTIONS') opts.onRequest = withHook(opts.onRequest, gate);
  });
  app.options(`${PUBLIC_PREFIX}*`, preflightHandler(origins));
}
