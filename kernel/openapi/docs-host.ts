import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { documentHeaders } from '../http/security-headers.js';
import { JSON_COMPRESSION } from '../http/compression.js';

const require = createRequire(import.meta.url);

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API reference</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/docs/openapi.json', dom_id: '#reference', deepLinking: true });`;

/** `/docs` (a readable reference from the swagger-ui-dist package, no CDN) and `/docs/openapi.json`. */
export async function installDocsHost(app: FastifyInstance, document: () => unknown): Promise<void> {
  const assets = dirname(require.resolve('swagger-ui-dist/package.json'));
  await app.register(fastifyStatic, { root: assets, prefix: '/docs/assets/', decorateReply: false, index: false });
  let cached: string | null = null;
  // The reference is large (hundreds of KiB): sent compressed as the browser asks.
  app.get('/docs/openapi.json', { compress: JSON_COMPRESSION }, async (_req, reply) => {
    cached ??= JSON.stringify(document(), null, 2);
    return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(cached);
  });
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').headers(documentHeaders('no-cache')).send(PAGE));
  app.get('/docs/init.js', async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(INIT));
}
