import compress, { type FastifyCompressOptions } from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * How a contract route's JSON answer is compressed: from 1 KiB, when the client asks
 * (`Accept-Encoding`: br, gzip or deflate; brotli at the library's quality 4, which costs about
 * what gzip does). Only the kernel's JSON routes take it (`mountRoute`); raw answers (export
 * downloads, add-on files), event streams and the dashboard's files (compressed once at build,
 * served by the SPA host) go out as they are, so a big download never holds a core compressing it.
 */
export const JSON_COMPRESSION: Pick<FastifyCompressOptions, 'threshold' | 'encodings'> = { threshold: 1024, encodings: ['br', 'gzip', 'deflate'] };

export async function installCompression(http: FastifyInstance): Promise<void> {
  await http.register(compress, {
    ...JSON_COMPRESSION,
    // Routes opt in (above): nothing else is compressed on the fly.
    global: false,
    // Request bodies are never inflated (no decompression bomb): a compressed body is refused as before.
    globalDecompression: false,
  });
}
