import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AudienceGate, RouteAudience } from '../contract/audience.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Who an audience's gate admitted (K47); null on every other route. The kernel's own: a
     * handler reads it as its typed `caller`.
     */
    audienceCaller: unknown;
  }
}

/** Declared once before any route, so every request keeps one shape. */
export function declareAudienceCaller(app: FastifyInstance): void {
  app.decorateRequest('audienceCaller', null);
}

type Hook = (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void;

/**
 * The route options that put one route behind its audience's gate. Route-level, so the gate
 * sees only the routes meant for it. A callback hook: a gate that answers a value (the key
 * cached, as on nearly every request) lets the request on without a promise (K40).
 */
export function audienceRouteOptions(audience: RouteAudience, gate: AudienceGate<unknown, unknown>): Partial<RouteOptions> {
  const admit = gate.admit(audience.options);
  const hook: Hook = (req, reply, done) => {
    let caller: unknown;
    try {
      caller = admit(req, reply);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (caller instanceof Promise)
      caller.then((c: unknown) => {
        req.audienceCaller = c;
        done();
      }, done);
    else {
      req.audienceCaller = caller;
      done();
    }
  };
  return {
    ...(gate.stage === 'body' ? { preValidation: hook } : { onRequest: hook }),
    ...(gate.errorHandler ? { errorHandler: gate.errorHandler } : {}),
    // @fastify/cors reads this per route.
    ...(gate.ownCors ? { config: { cors: false } as RouteOptions['config'] } : {}),
  };
}
