import { AppError } from '../../kernel/errors.js';
import type { Principal } from '../../kernel/identity/principal.js';

export const SESSION_REQUIRED = 'SESSION_REQUIRED';

export const meErrors = {
  // Every principal holds `self`, but an adm_sk_ key acts for a role, not for a person: there is
  // no "me" behind it. A code of its own tells a script author why, where FORBIDDEN would not.
  [SESSION_REQUIRED]: { status: 403, message: 'This operation acts on the signed-in user; an API key has no user.' },
};

/** The signed-in user's id; refuses a principal without one (an API key). */
export function userIdOf(principal: Principal | null): string {
  if (!principal || principal.kind !== 'session' || !principal.userId) throw new AppError(SESSION_REQUIRED);
  return principal.userId;
}
