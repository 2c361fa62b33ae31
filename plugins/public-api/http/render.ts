import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AddonFailureLog, AppError, logRequestError, type MetaDialectHelpers, toAppError } from '../../../kernel/api.js';

/**
 * The public API's error envelope: D4's without `requestId`. PUBLIC_REF_NOT_FOUND must read
 * byte for byte the same for an unknown endpoint, an ungranted method and a row outside the
 * filter, and a per-request id in the body would make every answer unique. The id still
 * travels in the X-Request-Id header.
 */
export const publicErrorSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.string(),
      message: z.string(),
      params: z.record(z.string(), z.unknown()).optional(),
      issues: z.array(z.strictObject({ path: z.string(), code: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'PublicError' });

export type PublicErrorBody = z.infer<typeof publicErrorSchema>;

export function publicEnvelope(err: AppError): PublicErrorBody {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.params ? { params: err.params } : {}),
      ...(err.issues ? { issues: err.issues } : {}),
    },
  };
}

/** The route-level error handler of every public route: the kernel's mapping, our envelope. */
export function publicErrorHandler(meta: MetaDialectHelpers, addonFailures: AddonFailureLog | null = null) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const appErr = toAppError(err, meta);
    logRequestError(req, err, appErr, addonFailures, 'public request');
    if (appErr.headers) reply.headers(appErr.headers);
    reply.code(appErr.status).type('application/json; charset=utf-8').send(publicEnvelope(appErr));
  };
}
