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
