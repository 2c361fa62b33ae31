/// <reference types="node" />
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** Text files worth compressing; images and fonts (woff2) are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest)$/;
/** Below this a compressed copy saves less than its headers cost. */
const MIN_BYTES = 1024;

/**
 * Writes a brotli (`.br`, quality 11) and a gzip (`.gz`, level 9) copy beside each text file of
 * the build, once, at the best ratio: the server sends the copy the browser accepts
 * (@fastify/static `preCompressed`) and compresses nothing of the dashboard per request.
 */
export function precompress(): Plugin {
  return {
    name: 'svc-precompress',
    apply: 'build',
    enforce: 'post',
    // After the bundle is written: only then is each file final (Vite fills in its preload
    // lists in its own last step); a copy taken earlier would differ from the file.
    writeBundle(options, bundle) {
      const dir = options.dir ?? 'dist';
      for (const file of Object.values(bundle)) {
        if (!COMPRESSIBLE.test(file.fileName)) continue;
        const bytes = Buffer.from(file.type === 'chunk' ? file.code : file.source);
        if (bytes.length < MIN_BYTES) continue;
        const br = brotliCompressSync(bytes, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
        });
        writeFileSync(join(dir, `${file.fileName}.br`), br);
        writeFileSync(join(dir, `${file.fileName}.gz`), gzipSync(bytes, { level: 9 }));
      }
    },
  };
}
