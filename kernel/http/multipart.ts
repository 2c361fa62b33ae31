import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MIMEType } from 'node:util';
import type { AudienceGate } from '../contract/audience.js';
import type { RouteDefinition } from '../contract/route.js';
import { AppError } from '../errors.js';
import type { Kernel } from '../kernel-services.js';
import { mountRoute } from './routes.js';

/**
 * A multipart route in a fastify scope of its own with @fastify/multipart registered there:
 * its parser, and the hooks it adds to every request of its scope, stay with this one route.
 * Everywhere else a multipart body is an unknown content type (415 UNSUPPORTED_MEDIA_TYPE).
 */
export async function mountMultipartRoute(
  app: FastifyInstance,
  plugin: string,
  def: RouteDefinition,
  kernel: Kernel,
  gate?: AudienceGate<unknown, unknown>,
): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(multipart, { limits: { ...def.multipart } });
    mountRoute(scope, plugin, def, kernel, gate);
  });
}

/** RFC 2046 §5.1.1: 1 to 70 of these characters, the last not a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The boundary of a multipart Content-Type, or null when there is none a parser can use. */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType) return null;
  let boundary: string | null;
  try {
    boundary = new MIMEType(contentType).params.get('boundary');
  } catch {
    return null;
  }
  return boundary !== null && BOUNDARY.test(boundary) ? boundary : null;
}

const malformed = (message: string, cause?: unknown) => new AppError('MULTIPART_MALFORMED', { message, cause });

/**
 * What the body parser threw, as the client's fault: busboy's errors are plain `Error`s without
 * a code (no boundary, a body that does not follow its boundary, a part cut short), which would
 * otherwise answer 500. The plugin's limit errors (FST_ codes, 413), our own, and system errors
 * (a disk that fails while the file is stored) pass through.
 */
export function multipartBodyError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  const e = err as { code?: unknown; syscall?: unknown } | null;
  if (typeof e?.code === 'string' && e.code.startsWith('FST_')) return err;
  if (typeof e?.syscall === 'string') return err;
  return malformed('The multipart/form-data body does not follow its boundary (cut short or malformed).', err);
}

/**
 * The one file part of a multipart request, after checking the boundary up front: a body is
 * only parsed once the client said how to split it. Errors of the part's stream are the
 * caller's to map with `multipartBodyError` (the stream is read after this returns).
 */
export async function multipartFile(request: FastifyRequest, limits: { fileSize: number; files?: number }): Promise<MultipartFile | undefined> {
  if (!request.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', { message: 'Send the file as multipart/form-data.' });
  if (multipartBoundary(request.headers['content-type']) === null)
    throw malformed('The Content-Type multipart/form-data needs a boundary parameter of 1 to 70 allowed characters (RFC 2046).');
  try {
    return await request.file({ limits: { files: 1, ...limits } });
  } catch (err) {
    throw multipartBodyError(err);
  }
}

/**
 * The one file of a small multipart upload, read whole into memory (a logo, a translation file):
 * 400 VALIDATION_FAILED at `body.file` without one, 413 PAYLOAD_TOO_LARGE over `fileSize` bytes
 * ("<what> is at most N bytes."). Large uploads stream instead (imports, add-on packages).
 */
export async function multipartBuffer(request: FastifyRequest, limits: { fileSize: number; what: string }): Promise<{ buffer: Buffer; filename: string }> {
  const part = await multipartFile(request, { fileSize: limits.fileSize, files: 1 });
  if (!part) throw new AppError('VALIDATION_FAILED', { issues: [{ path: 'body.file', code: 'required', message: 'No file part in the form.' }] });
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of part.file) chunks.push(chunk as Buffer);
  } catch (err) {
    if (part.file.errored) throw multipartBodyError(err);
    throw err;
  }
  if (part.file.truncated)
    throw new AppError('PAYLOAD_TOO_LARGE', { message: `${limits.what} is at most ${limits.fileSize} bytes.`, params: { limit: limits.fileSize } });
  return { buffer: Buffer.concat(chunks), filename: part.filename };
}
