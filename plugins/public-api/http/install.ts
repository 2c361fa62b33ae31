import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from '../../../kernel/errors.js';
import { sessionCookieOf } from '../../../kernel/http/authenticate.js';
import { API_PREFIX } from '../../../kernel/http/routes.js';
import type { Kernel } from '../../../kernel/kernel-services.js';
import type { PublicAdminProvides } from '../../public-admin/provides.js';
import type { PublicLimits } from '../limits/policy.js';
import { preflightHandler } from './cors.js';
import type { KeyCache } from './key-cache.js';
import { chargeAppAction, publicGate } from './gate.js';
import { publicErrorHandler } from './render.js';

export const PUBLIC_PREFIX = `${API_PREFIX}/public/`;
const APP_ACTIONS_PREFIX = `${PUBLIC_PREFIX}apps/`;

/** The gate as an async hook (it may answer synchronously through `done`). */
function promised(hook: RequestHook): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
  if (hook.length < 3) return hook as (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
  return (req, reply) =>
    new Promise<void>((resolve, reject) =>
      (hook as (r: FastifyRequest, p: FastifyReply, d: (e?: Error) => void) => void)(req, reply, (e) => (e ? reject(e) : resolve())),
    );
}

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
  // An app's actions also answer staff with a session (D23): such a request is the route's to
  // authenticate, not the gate's.
  const isAppAction = (opts: RouteOptions) => opts.url.startsWith(APP_ACTIONS_PREFIX);
  const staffCall = (req: FastifyRequest) => req.headers.authorization === undefined && sessionCookieOf(req) !== undefined;
  const unlessStaff =
    (hook: (req: FastifyRequest, reply: FastifyReply) => Promise<void>) =>
    async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      if (!staffCall(req)) await hook(req, reply);
    };
  if (kernel.config.publicApiOrigins.length === 0) {
    // After body parsing, as for a path with no route at all: even a malformed body answers alike.
    app.addHook('onRoute', (opts) => {
      if (isPublic(opts))
        opts.preValidation = withHook(opts.preValidation, isAppAction(opts) ? unlessStaff(notServed) : notServed) as RouteOptions['preValidation'];
    });
    return;
  }
  const origins = new Set(kernel.config.publicApiOrigins);
  const gate = publicGate({ admin: deps.admin, keys: deps.keys, limits: deps.limits, origins, hosts: kernel.hosts });
  const charge = chargeAppAction(deps.limits);
  const errorHandler = publicErrorHandler(kernel.meta.helpers, kernel.sandbox.failureLog);
  app.addHook('onRoute', (opts) => {
    if (!isPublic(opts)) return;
    // @fastify/cors reads this per route: the dashboard's credentialed CORS never answers here.
    opts.config = { ...opts.config, cors: false } as RouteOptions['config'];
    opts.errorHandler = errorHandler;
    if (opts.method === 'OPTIONS') return;
    if (isAppAction(opts)) opts.onRequest = withHook(withHook(opts.onRequest, unlessStaff(promised(gate))), charge);
    else opts.onRequest = withHook(opts.onRequest, gate);
  });
  app.options(`${PUBLIC_PREFIX}*`, preflightHandler(origins));
}
