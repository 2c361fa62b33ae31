import { isIP } from 'node:net';
import { isNetworkError } from '../../../kernel/meta/dialects/types.js';
import { errorCode, type FailureReason } from '../failure.js';
import type { ServerTarget } from '../types.js';

/** Node's TLS verification failures (a self-signed or expired certificate, a wrong host name). */
const TLS_CODES = /^(CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_|ERR_SSL_|HOSTNAME_MISMATCH)/;

/** What every server dialect shares: the socket never got anywhere, or TLS failed. */
export function classifyNetwork(err: unknown): FailureReason | null {
  const code = errorCode(err) ?? '';
  if (TLS_CODES.test(code)) return 'tls-failed';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  return isNetworkError(err) ? 'unreachable' : null;
}

/** The driver's `ssl` option for a TLS mode (the same shape for pg and mysql2). */
export function tlsOptions(target: ServerTarget): false | { rejectUnauthorized: boolean; servername?: string } {
  if (target.tls === 'disable') return false;
  if (target.tls === 'require') return { rejectUnauthorized: false };
  // SNI carries host names only; an address is checked against the certificate without it.
  return isIP(target.host) ? { rejectUnauthorized: true } : { rejectUnauthorized: true, servername: target.host };
}
