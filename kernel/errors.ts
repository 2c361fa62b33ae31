/**
 * One registry of coded errors (the envelope of DESIGN D4). A plugin adds its own codes with
 * `registerErrorCodes`; every thrown AppError carries a code that exists here, so the status
 * and the default message live in one place.
 */
export interface ErrorIssue {
  path: string;
  code: string;
  message: string;
}

interface ErrorCodeDef {
  status: number;
  message: string;
}

const registry = new Map<string, ErrorCodeDef>();

export function registerErrorCodes(defs: Record<string, ErrorCodeDef>): void {
  for (const [code, def] of Object.entries(defs)) {
    const existing = registry.get(code);
    // One code, one meaning: a plugin that declares a code another declared (the kernel's
    // NETWORK_FEATURES_DISABLED, say) would silently reword every answer of that code.
    if (existing && (existing.status !== def.status || existing.message !== def.message)) {
      throw new Error(`error code ${code} registered twice with different ${existing.status !== def.status ? 'statuses' : 'messages'}`);
    }
    registry.set(code, def);
  }
}

export const KERNEL_ERRORS = {
  VALIDATION_FAILED: { status: 400, message: 'The request is not valid.' },
  MALFORMED_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  BAD_REQUEST: { status: 400, message: 'The request cannot be processed.' },
  MULTIPART_MALFORMED: {
    status: 400,
    message: 'The multipart/form-data body cannot be read: a missing or malformed boundary, or a body that does not follow it.',
  },
  AUTH_REQUIRED: { status: 401, message: 'Sign in to continue.' },
  AUTH_INVALID_CREDENTIALS: { status: 401, message: 'The e-mail or password is wrong.' },
  AUTH_INVALID_CODE: { status: 401, message: 'The code is wrong.' },
  AUTH_CHALLENGE_EXPIRED: { status: 401, message: 'The sign-in challenge has expired; sign in again.' },
  FORBIDDEN: { status: 403, message: 'You do not have permission to do this.' },
  CSRF_REFUSED: { status: 403, message: 'The request origin is not allowed.' },
  SESSION_REQUIRED: { status: 403, message: 'This operation acts on the signed-in user; an API key has no user.' },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time.' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.' },
  SETUP_CLOSED: { status: 409, message: 'Setup is already complete.' },
  BASE_URL_REQUIRED: {
    status: 409,
    message: 'This instance does not know its public address, so it cannot e-mail a link: set SVC_BASE_URL (e.g. https://admin.example.com).',
  },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The content type is not supported.' },
  HOST_NOT_ALLOWED: {
    status: 421,
    message: 'This request names a host this instance does not answer for: use its own address (loopback, the listen address) or set SVC_BASE_URL.',
  },
  RATE_LIMITED: { status: 429, message: 'Too many requests; retry later.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are too large.' },
  INTERNAL: { status: 500, message: 'Something went wrong on our side.' },
  META_UNAVAILABLE: { status: 503, message: 'The meta store is unavailable.' },
  SHUTTING_DOWN: { status: 503, message: 'This server is shutting down and did not run the request; send it again (another replica will answer).' },
  STORAGE_FULL: { status: 503, message: 'The storage this request writes to is full; nothing was written. Free some space and send it again.' },
} as const satisfies Record<string, ErrorCodeDef>;

registerErrorCodes(KERNEL_ERRORS);

export type KernelErrorCode = keyof typeof KERNEL_ERRORS;

export interface AppErrorOptions {
  message?: string;
  params?: Record<string, unknown>;
  issues?: ErrorIssue[];
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly code: string;
  readonly status: number;
  readonly params: Record<string, unknown> | undefined;
  readonly issues: ErrorIssue[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: KernelErrorCode | (string & {}), options: AppErrorOptions = {}) {
    const def = registry.get(code);
    if (!def) throw new Error(`unregistered error code ${code}`);
    super(options.message ?? def.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = def.status;
    this.params = options.params;
    this.issues = options.issues;
    this.headers = options.headers;
  }
}

export function errorCodes(): ReadonlyMap<string, ErrorCodeDef> {
  return registry;
}

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    params?: Record<string, unknown>;
    issues?: ErrorIssue[];
    requestId: string;
  };
}

export function envelope(err: AppError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: err.code,
      message: err.message,
      ...(err.params ? { params: err.params } : {}),
      ...(err.issues ? { issues: err.issues } : {}),
      requestId,
    },
  };
}
