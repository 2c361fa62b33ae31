import { AppError, type TargetConnectFailure } from '../../kernel/api.js';
import { driverFor } from '../../engine/sources/index.js';
import { toFailure } from '../../engine/sources/failure.js';

export const META_ERRORS = {
  META_PLACEMENT_FROM_ENV: {
    status: 409,
    message: 'SVC_META_URL decides where the meta store is: change the variable (after moving the data yourself) and restart.',
  },
  META_RELOCATE_REPLICAS: {
    status: 409,
    message: 'Other processes share this meta store: stop them (leave one instance running) before relocating.',
  },
  META_TARGET_NOT_EMPTY: { status: 409, message: 'The target database already holds tables of a meta store: relocate only to an empty database.' },
  // Same text as the connections plugin's: one code, one meaning.
  CONNECTION_FAILED: { status: 400, message: 'The database could not be reached with these settings.' },
};

/** The target did not answer: 400 CONNECTION_FAILED with C3's reason, the URL and password never echoed. */
export function targetFailed(err: TargetConnectFailure, url: string | null): AppError {
  const secrets: string[] = [];
  if (url) {
    try {
      const u = new URL(url);
      if (u.password) secrets.push(decodeURIComponent(u.password));
      if (u.username) secrets.push(decodeURIComponent(u.username));
    } catch {
      // an invalid URL is refused by the schema first
    }
  }
  const failure = toFailure(driverFor(err.dialect).classify(err.cause) ?? 'unknown', err.cause, secrets);
  return new AppError('CONNECTION_FAILED', { message: failure.message, params: { reason: failure.reason } });
}
