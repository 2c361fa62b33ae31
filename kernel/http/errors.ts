import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, envelope } from '../errors.js';
import type { MetaDialectHelpers } from '../meta/dialects/types.js';
import type { AddonFailureLog } from '../sandbox/failure-log.js';
import type { ServingState } from '../serving.js';
import { isFileSystemFull, isStorageFull } from '../storage-full.js';

const BY_FASTIFY_CODE: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MALFORMED_JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_NOT_FOUND: 'NOT_FOUND',
};

const BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
};

/** Turns anything thrown into a typed AppError; unknown failures become INTERNAL (no stack, no SQL). */
export function toAppError(err: unknown, meta: MetaDialectHelpers): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError;
  const byCode = fe?.code ? BY_FASTIFY_CODE[fe.code] : undefined;
  if (byCode) return new AppError(byCode);
  if (err instanceof SyntaxError && fe.statusCode === 400) return new AppError('MALFORMED_JSON');
  // Before "unreachable": a full disk is no outage of the store, and the answer says what to do.
  if (isStorageFull(err)) return new AppError('STORAGE_FULL');
  if (meta.isUnreachable(err)) return new AppError('META_UNAVAILABLE');
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500 && BY_STATUS[fe.statusCode])
    return new AppError(BY_STATUS[fe.statusCode]!);
  return new AppError('INTERNAL', { cause: err });
}

/**
 * Logs a failed or refused request. An add-on call's failure is the add-on's, not the instance's:
 * it goes to the add-on failure log (warn, no stack, bounded per add-on: AO31) instead of error.
 */
export function logRequestError(req: FastifyRequest, err: unknown, appErr: AppError, addonFailures: AddonFailureLog | null, what: string): void {
  if (addonFailures?.write(req.log, appErr, { method: req.method, url: req.routeOptions.url ?? null }, err)) return;
  if (appErr.status >= 500) {
    req.log.error({ err, code: appErr.code }, `${what} failed`);
  } else {
    req.log.info({ code: appErr.code, status: appErr.status }, `${what} refused`);
  }
}

export function installErrorHandler(app: FastifyInstance, meta: MetaDialectHelpers, serving: ServingState, addonFailures: AddonFailureLog | null = null): void {
  app.setErrorHandler((err, req, reply) => {
    const appErr = toAppError(err, meta);
    // The meta store reports its own (kernel/meta/write-watch.ts); a full file system is the data dir's.
    if (appErr.code === 'STORAGE_FULL' && isFileSystemFull(err)) serving.sawStorageFull();
    logRequestError(req, err, appErr, addonFailures, 'request');
    if (appErr.headers) reply.headers(appErr.headers);
    reply.code(appErr.status).type('application/json; charset=utf-8').send(envelope(appErr, req.id));
  });
}
