import { AppError } from '../errors.js';
import type { PermissionSet } from './permissions.js';

/** Who is making a request and what they may do. Same shape for a session and an API key. */
export interface Principal {
  kind: 'session' | 'apiKey';
  /** The signed-in user; null for an API key, which acts with its role and nothing else. */
  userId: string | null;
  sessionId: string | null;
  apiKeyId: string | null;
  roleIds: string[];
  permissions: PermissionSet;
}

/**
 * The signed-in user behind the request. Every principal holds `self`, but an adm_sk_ key acts
 * for a role, not a person: routes about "my" things answer 403 SESSION_REQUIRED to it.
 */
export function requireUser(principal: Principal | null): { userId: string; sessionId: string | null } {
  if (!principal || principal.kind !== 'session' || !principal.userId) throw new AppError('SESSION_REQUIRED');
  return { userId: principal.userId, sessionId: principal.sessionId };
}

/** Who owns what a principal creates (an export, an upload): the user, or the API key itself. */
export function ownerOf(p: Principal): { type: 'user' | 'apiKey'; id: string } {
  return p.kind === 'apiKey' ? { type: 'apiKey', id: p.apiKeyId! } : { type: 'user', id: p.userId! };
}
