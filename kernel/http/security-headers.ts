import type { FastifyInstance } from 'fastify';

/** The policy of the instance's own documents (the dashboard, /docs): set by the handlers that serve HTML. */
export const DOCUMENT_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

const FIXED = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * Conservative headers on every answer, set on request, so they survive a handler that takes
 * over the raw response (event streams). An API answer is `no-store` unless its route says
 * otherwise (a route's own Cache-Control replaces it); the documents' CSP is set where HTML is
 * served (spa.ts, docs-host.ts). HSTS only when the request came over https. One callback hook
 * and no onSend hook: this runs on every request, and each hook shows in the healthz bench.
 */
export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(FIXED);
    reply.header('x-request-id', req.id);
    if (req.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    if (req.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    done();
  });
}
