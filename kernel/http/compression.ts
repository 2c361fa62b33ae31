import { constants } from 'node:zlib';
import compress, { type FastifyCompressOptions } from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * How a contract route's JSON answer is compressed: from 1 KiB, when the client asks
 * (`Accept-Encoding`: br, gzip or deflate). Only the kernel's JSON routes take it (`mountRoute`);
 * raw answers (export downloads, add-on files), event streams and the dashboard's files
 * (compressed once at build, served by the SPA host) go out as they are, so a big download never
 * holds a core compressing it.
 *
 * Brotli at quality 2 with a 256 KiB window (K51 amended): measured in CPU time on a page of 20
 * rows (2.2 KB) it costs 14 µs against quality 4's 25, and on 500 rows (53 KB) 130 µs against
 * 251, for 5–20 % more bytes (459 against 385 B; 4.5 against 4.2 KB). An answer is made once
 * and read once, so the server's core is worth more than those bytes (bench/README.md, data-list).
 */
export const JSON_COMPRESSION: Pick<FastifyCompressOptions, 'threshold' | 'encodings' | 'brotliOptions'> = {
  threshold: 1024,
  encodings: ['br', 'gzip', 'deflate'],
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 2, [constants.BROTLI_PARAM_LGWIN]: 18 } },
};

export async function installCompression(http: FastifyInstance): Promise<void> {
  await http.register(compress, {
    ...JSON_COMPRESSION,
    // Routes opt in (above): nothing else is compressed on the fly.
    global: false,
    // Request bodies are never inflated (no decompression bomb): a compressed body is refused as before.
    globalDecompression: false,
  });
}
