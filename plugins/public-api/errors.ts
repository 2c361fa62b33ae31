import { AppError } from '../../kernel/api.js';

/**
 * The public API's codes (seed "Public API errors"). PUBLIC_SESSION_REQUIRED is ours: the seed
 * says an endpoint that needs a signed-in customer requires the header, not how it refuses.
 */
export const PUBLIC_ERRORS = {
  PUBLIC_KEY_INVALID: { status: 401, message: 'The public API key is unknown, revoked or expired.' },
  PUBLIC_SESSION_REQUIRED: { status: 401, message: 'This needs a signed-in customer: claim a session and send it in X-Svc-Public-Session.' },
  PUBLIC_ORIGIN_REFUSED: { status: 403, message: 'This key cannot be used from here.' },
  PUBLIC_REF_NOT_FOUND: { status: 404, message: 'Not found.' },
  PUBLIC_WRITE_REFUSED: { status: 400, message: 'The write was refused.' },
  PUBLIC_QUERY_REFUSED: { status: 400, message: 'The query was refused.' },
  PUBLIC_SLOT_FULL: { status: 409, message: 'The requested time has no room.' },
  PUBLIC_SLOT_BUSY: { status: 409, message: 'Someone else was booking the same thing at that instant; retry shortly.' },
  PUBLIC_TOO_LATE: { status: 409, message: 'It is too close to the time to change this online.' },
  PUBLIC_TOO_EARLY: { status: 409, message: 'This is not open yet; retry closer to the time.' },
  PUBLIC_RATE_LIMITED: { status: 429, message: 'Too many requests; retry after the number of seconds in Retry-After.' },
  PUBLIC_API_DISABLED: { status: 503, message: 'The public API is switched off.' },
} as const;

export type WriteRefusal =
  | 'not-writable'
  | 'required'
  | 'too-long'
  | 'format'
  | 'invalid-character'
  | 'type'
  | 'not-allowed'
  | 'out-of-range'
  | 'not-a-slot'
  | 'identity'
  | 'duplicate'
  | 'reference'
  | 'check'
  | 'batch-size'
  | 'outside-filter'
  | 'primary-key'
  | 'refused';

/**
 * One answer for "no such endpoint", "method not granted" and "row outside the filter": the
 * same code, message and no params, so a caller cannot tell them apart (the seed's rule).
 */
export function refNotFound(): AppError {
  return new AppError('PUBLIC_REF_NOT_FOUND');
}

export function writeRefused(column: string | null, reason: WriteRefusal, extra: Record<string, unknown> = {}): AppError {
  return new AppError('PUBLIC_WRITE_REFUSED', { params: { column, reason, ...extra } });
}

export function queryRefused(parameter: string, reason: string): AppError {
  return new AppError('PUBLIC_QUERY_REFUSED', { params: { parameter, reason } });
}

export function slotBusy(): AppError {
  return new AppError('PUBLIC_SLOT_BUSY');
}
