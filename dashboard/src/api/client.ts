import createClient, { type Middleware } from 'openapi-fetch';
import { ApiError, NETWORK_ERROR, UNEXPECTED_RESPONSE } from './errors';
import type { ApiPaths, Schemas } from './types';

// Errors and types have their own modules so screens can use them without the client; these
// re-exports keep the data modules' one import.
export { ApiError, NETWORK_ERROR, UNEXPECTED_RESPONSE } from './errors';
export type { ApiPaths, ErrorIssue, RequestBody, Schemas, User } from './types';

/** Codes that mean "not (or no longer) signed in": the person goes to sign-in and comes back. */
const SIGNED_OUT_CODES = new Set(['AUTH_REQUIRED', 'AUTH_SESSION_INVALID']);
let onSignedOut: ((reason: 'required' | 'ended') => void) | null = null;

/** Called once by the app: what to do when any call finds the session gone. */
export function setSignedOutHandler(handler: (reason: 'required' | 'ended') => void): void {
  onSignedOut = handler;
}

function isEnvelope(body: unknown): body is Schemas['Error'] {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = (body as { error: unknown }).error;
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string';
}

async function errorOf(response: Response): Promise<ApiError> {
  const isJson = (response.headers.get('content-type') ?? '').includes('json');
  const body: unknown = isJson ? await response.json().catch(() => null) : null;
  if (!isEnvelope(body)) return new ApiError(response.status, UNEXPECTED_RESPONSE, response.statusText);
  const e = body.error;
  return new ApiError(response.status, e.code, e.message, e.params ?? {}, e.issues ?? [], e.requestId);
}

/** Turns every non-2xx answer into a thrown ApiError, and a lost session into a trip to sign-in. */
const errors: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return undefined;
    const error = await errorOf(response.clone());
    if (response.status === 401 && SIGNED_OUT_CODES.has(error.code)) onSignedOut?.(error.code === 'AUTH_SESSION_INVALID' ? 'ended' : 'required');
    throw error;
  },
  onError({ error }) {
    if (error instanceof ApiError) return error;
    return new ApiError(0, NETWORK_ERROR, error instanceof Error ? error.message : String(error));
  },
};

/** The one client of the REST API: same origin, the session cookie travels with every call. */
export const api = createClient<ApiPaths>({ baseUrl: '/api/v1', credentials: 'include' });
api.use(errors);

/**
 * The data of a call whose errors the middleware already throws: `await ok(api.GET('/me'))`.
 * openapi-fetch still types `data` as optional, so an empty 2xx is caught here.
 */
export async function ok<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined) throw new ApiError(response.status, UNEXPECTED_RESPONSE, response.statusText);
  return data;
}
