/**
 * Why a connection to an operator's database failed, as a reason a person can act on. The
 * message never carries the URL or the password: it is built from fixed text, and a driver's
 * own words are only used (scrubbed) when nothing better is known.
 */
export const FAILURE_REASONS = [
  'auth-failed',
  'unreachable',
  'timeout',
  'database-not-found',
  'file-not-found',
  'not-a-database',
  'permission-denied',
  'tls-required',
  'tls-failed',
  'invalid-url',
  'meta-store',
  'unknown',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export const REASON_MESSAGES: Record<FailureReason, string> = {
  'auth-failed': 'The database refused the user name or password.',
  unreachable: 'Nothing answered at that host and port.',
  timeout: 'The database did not answer in time.',
  'database-not-found': 'The server has no database with that name.',
  'file-not-found': 'There is no file at that path.',
  'not-a-database': 'That is not a database this dialect can open.',
  'permission-denied': 'The database (or the file system) does not allow this user to open that database.',
  'tls-required': 'The server requires an encrypted connection: add ?sslmode=require or ?sslmode=verify-full to the URL.',
  'tls-failed': 'The encrypted connection could not be set up: the server offers no TLS, or its certificate is not trusted.',
  'invalid-url': 'The connection URL is not valid.',
  'meta-store': 'That is the database this service keeps its own data in (users, sessions, keys); it cannot be a connection.',
  unknown: 'The database refused the connection.',
};

export class SourceFailure extends Error {
  override name = 'SourceFailure';
  constructor(
    readonly reason: FailureReason,
    message: string = REASON_MESSAGES[reason],
  ) {
    super(message);
  }
}

const NODE_NET_MESSAGES: Record<string, string> = {
  ENOTFOUND: 'The host name could not be resolved.',
  EAI_AGAIN: 'The host name could not be resolved (DNS did not answer).',
  ECONNREFUSED: 'Nothing is listening at that host and port.',
  EHOSTUNREACH: 'The host cannot be reached from this server.',
  ENETUNREACH: 'The network of that host cannot be reached from this server.',
};

/** The first `code` along an error's cause chain. */
export function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Every message along an error's cause chain, for pattern checks. */
export function errorText(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const msg = (e as { message?: unknown }).message;
    if (typeof msg === 'string') parts.push(msg);
    e = (e as { cause?: unknown }).cause;
  }
  // AggregateError (several addresses for one host name, all refused) keeps its causes apart.
  const many = (err as { errors?: unknown }).errors;
  if (Array.isArray(many)) for (const inner of many) parts.push(errorText(inner));
  return parts.join(' | ');
}

/** A driver's message with every secret taken out, short and on one line. */
export function scrub(text: string, secrets: Array<string | null | undefined>): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 3) out = out.split(s).join('[redacted]');
  // Anything that still looks like a URL with credentials goes too.
  out = out.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s'"]*/gi, '[url]');
  // eslint-disable-next-line no-control-regex
  return out.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 300);
}

/** The failure for a raw error, with a message that is safe to show. */
export function toFailure(reason: FailureReason | null, err: unknown, secrets: Array<string | null | undefined>): SourceFailure {
  if (err instanceof SourceFailure) return err;
  const code = errorCode(err);
  if (reason === 'unreachable' && code && NODE_NET_MESSAGES[code]) return new SourceFailure('unreachable', NODE_NET_MESSAGES[code]);
  if (reason && reason !== 'unknown') return new SourceFailure(reason);
  const detail = scrub(errorText(err), secrets);
  return new SourceFailure('unknown', detail ? `${REASON_MESSAGES.unknown} ${code ? `(${code}) ` : ''}${detail}` : REASON_MESSAGES.unknown);
}
