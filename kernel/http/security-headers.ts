import type { FastifyInstance } from 'fastify';

/** The policy of the documents the kernel serves (the dashboard, /docs); add-on pages bring their own. */
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

/** On every answer of the server, whatever it serves. */
export const EVERY_ANSWER = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * What only a document acts on: which referrer the requests it makes send, and the browsing
 * context group its window opens in. On a JSON answer they are bytes no browser reads.
 */
export const DOCUMENT_ONLY = {
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * Conservative headers on every answer, set on request so they survive a handler that takes over
 * the raw response (event streams) and an answer that fails before any handler runs. An API
 * answer is `no-store` unless its handler says otherwise (it sets its own later, which wins). The
 * document policy and DOCUMENT_ONLY are set where documents are served (documentHeaders), not by
 * looking at every answer on its way out: a hook per request shows in the healthz bench, and so
 * does every header (decisions K36). HSTS only over https.
 */
export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.headers(EVERY_ANSWER);
    reply.header('x-request-id', req.id);
    if (req.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
    if (req.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    done();
  });
}

/** What a kernel-served HTML document carries besides the fixed headers. */
export const documentHeaders = (cacheControl: string): Record<string, string> => ({
  ...DOCUMENT_ONLY,
  'content-security-policy': DOCUMENT_CSP,
  'cache-control': cacheControl,
});
