import { AppError } from '../../kernel/api.js';
import type { SourceFailure } from '../../engine/sources/index.js';

export const CONNECTION_ERRORS = {
  CONNECTION_FAILED: { status: 400, message: 'The database could not be reached with these settings.' },
  CONNECTION_UNAVAILABLE: { status: 503, message: 'The database of this connection cannot be reached right now; retry shortly.' },
};

/** A test (or a save, which tests first) did not reach the database: 400 with the reason. */
export function connectionFailed(failure: SourceFailure): AppError {
  return new AppError('CONNECTION_FAILED', { message: failure.message, params: { reason: failure.reason } });
}

/**
 * The URL reaches the meta store's own database: 400 CONNECTION_FAILED with reason 'meta-store'
 * on saving, testing and using alike (it is never a passing outage, so never a 503).
 */
export function metaStoreRefused(failure: SourceFailure, connectionId?: string): AppError {
  return new AppError('CONNECTION_FAILED', { message: failure.message, params: { reason: failure.reason, ...(connectionId ? { connectionId } : {}) } });
}

/** A stored connection's database is down (or refuses us) while something needs it: 503. */
export function connectionUnavailable(connectionId: string, failure: SourceFailure): AppError {
  return new AppError('CONNECTION_UNAVAILABLE', {
    message: `The database of this connection cannot be reached right now: ${failure.message}`,
    params: { connectionId, reason: failure.reason },
  });
}

export function connectionNotFound(connectionId: string): AppError {
  return new AppError('NOT_FOUND', { message: 'No connection with this id.', params: { connectionId } });
}
