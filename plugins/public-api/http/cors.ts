import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../kernel/api.js';

export const SESSION_HEADER = 'x-svc-public-session';
export const NEXT_CURSOR_HEADER = 'x-next-cursor';

const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Svc-Public-Session';
const EXPOSE_HEADERS = 'X-Next-Cursor, Retry-After, X-Request-Id';

/**
 * CORS of the public routes, from SVC_PUBLIC_API_ORIGINS only and never credentialed: the key
 * travels in Authorization, so a page needs no cookie, and the dashboard's credentialed CORS
 * (SVC_CORS_ORIGINS) must not open the public API to its origins. Set before any check can
 * refuse, so a listed page can read the refusal's code.
 */
export function applyCors(req: FastifyRequest, reply: FastifyReply, origins: ReadonlySet<string>): void {
  reply.header('vary', 'Origin');
  const origin = req.headers.origin;
  if (origin === undefined || !origins.has(origin)) return;
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
  // The kernel's same-origin default would stop a listed page from embedding the answer.
  reply.header('cross-origin-resource-policy', 'cross-origin');
}

/** OPTIONS on any public path: a listed origin gets the preflight answer, any other is refused. */
export function preflightHandler(origins: ReadonlySet<string>) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    applyCors(req, reply, origins);
    const origin = req.headers.origin;
    if (origin === undefined || !origins.has(origin)) throw new AppError('PUBLIC_ORIGIN_REFUSED');
    reply
      .code(204)
      .headers({ 'access-control-allow-methods': ALLOW_METHODS, 'access-control-allow-headers': ALLOW_HEADERS, 'access-control-max-age': '600' })
      .send();
  };
}
