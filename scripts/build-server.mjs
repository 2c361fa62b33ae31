// `npm run build:server` (run by `npm start` before it starts): compiles the server from
// kernel/main.ts into build/server/ as ES modules, so the running process loads plain
// JavaScript and no TypeScript loader. Packages stay external (node_modules is resolved at run
// time); our own modules are bundled, with dynamic imports split into chunks so that what is
// loaded on first use stays so. Linked source maps let `--enable-source-maps` print `.ts`
// positions in stack traces.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'build', 'server');

/** Worker threads' modules (`*-worker.ts`) are entries of their own, in build/server/workers/ (kernel/workers.ts). */
function workerEntries() {
  const entries = {};
  for (const top of ['kernel', 'engine', 'plugins']) {
    for (const file of readdirSync(join(root, top), { recursive: true })) {
      const path = String(file);
      if (path.endsWith('-worker.ts')) entries[`workers/${path.split('/').pop().replace(/\.ts$/, '')}`] = `${top}/${path}`;
    }
  }
  return entries;
}

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: 'kernel/main.ts', ...workerEntries() },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  sourcesContent: false,
  chunkNames: 'chunks/[name]-[hash]',
  // Code is escaped to ASCII; the comments esbuild keeps (doc comments on class members) are not.
  charset: 'ascii',
  logLevel: 'warning',
});

// V8 keeps every module's source text for the life of the process, and one non-Latin-1
// character (an arrow in a kept comment) makes it a two-byte string: twice the memory
// (main.js: 1.7 MB instead of 0.8). Such characters can only be in comments here, since code is
// escaped to ASCII; each becomes one `?`, so no column moves and the source maps stay right.
for (const file of readdirSync(outdir, { recursive: true })) {
  const path = join(outdir, String(file));
  if (!path.endsWith('.js')) continue;
  const text = readFileSync(path, 'utf8');
  const ascii = text.replace(/[^\x00-\x7f]/gu, (ch) => '?'.repeat(ch.length));
  if (ascii !== text) writeFileSync(path, ascii);
}
