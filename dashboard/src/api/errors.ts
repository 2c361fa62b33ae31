import type { ErrorIssue } from './types';

/** Codes the client makes up itself when there is no error envelope to read. */
export const NETWORK_ERROR = 'CLIENT_NETWORK_ERROR';
export const UNEXPECTED_RESPONSE = 'CLIENT_UNEXPECTED_RESPONSE';

/** An answer that is not 2xx, with the server's error envelope (DESIGN D4). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly params: Record<string, unknown> = {},
    readonly issues: ErrorIssue[] = [],
    readonly requestId: string | null = null,
  ) {
    super(message);
  }

  /** Validation messages by field, for the body fields of a form (`body.email` → `email`). */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const issue of this.issues) {
      const field = issue.path.startsWith('body.') ? issue.path.slice('body.'.length) : issue.path;
      out[field] ??= issue.message;
    }
    return out;
  }
}
