import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { documentHeaders } from './security-headers.js';

const PLACEHOLDER = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Admin</title></head>
<body><h1>The dashboard is not built</h1><p>Run <code>npm run build:dashboard</code>, or start with <code>npm start</code>, which builds it.</p></body></html>`;

/** Paths that never fall back to the SPA: unknown ones there answer the 404 envelope. */
function isReserved(path: string): boolean {
  return path.startsWith('/api/') || path === '/api' || path === '/ws' || path === '/docs' || path.startsWith('/docs/');
}

/** The kinds of file a built dashboard serves (and browsers ask for on their own: favicon, robots). */
const FILE_EXTENSIONS = /\.(?:js|mjs|css|map|html|json|webmanifest|txt|xml|ico|png|jpe?g|gif|svg|webp|avif|woff2?|ttf|otf|wasm)$/i;

/**
 * A missing file is a 404, not the app: a stale hashed chunk after a redeploy must fail as a
 * missing script, not as HTML the browser refuses to run. Only file types a dashboard serves
 * count: the app's own addresses carry dotted values (a table `sales.orders`, a version
 * `1.1.0`), and those are deep links.
 */
function looksLikeFile(path: string): boolean {
  return path.startsWith('/assets/') || FILE_EXTENSIONS.test(path);
}

/**
 * Serves the built dashboard at `/` with history fallback: any unknown GET outside /api/, /ws
 * and /docs/ answers index.html with 200 (bare /healthz included).
 */
export async function installSpaHost(app: FastifyInstance, distDir: string): Promise<void> {
  const hasDist = existsSync(join(distDir, 'index.html'));
  if (hasDist) {
    await app.register(fastifyStatic, {
      root: distDir,
      prefix: '/',
      wildcard: false,
      index: false,
      // The build writes `.br` and `.gz` copies (dashboard/precompress.ts): sent as the browser accepts.
      preCompressed: true,
      setHeaders(res, sent) {
        const path = sent.replace(/\.(?:br|gz)$/, '');
        const cacheControl = path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
        if (path.endsWith('.html')) res.headers(documentHeaders(cacheControl));
        else res.header('cache-control', cacheControl);
      },
    });
  }
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    if (isReserved(path) || looksLikeFile(path) || (req.method !== 'GET' && req.method !== 'HEAD')) {
      throw new AppError('NOT_FOUND');
    }
    reply.code(200).headers(documentHeaders('no-cache'));
    if (!hasDist) return reply.type('text/html; charset=utf-8').send(PLACEHOLDER);
    return reply.sendFile('index.html');
  });
}
