import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  hashCostDiffers,
  hashPassword,
  hashToken,
  type Kernel,
  presentedSessionToken,
  SESSION_ABSOLUTE_MS,
  setSessionCookie,
  toUser,
  type User,
  verifyPassword,
} from '../../kernel/api.js';
import type { AuthDb, UserRow } from './tables.js';
import { settingsRef } from '../settings/provides.js';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export type CredentialCheck = { ok: true; user: UserRow } | { ok: false; user: UserRow | null; reason: 'unknown-email' | 'wrong-password' | 'not-active' };

/**
 * One argon2 verify on every path (a decoy hash for an unknown e-mail or an invited user
 * without a password), so every refusal costs the same time and looks the same.
 */
export async function checkCredentials(db: AuthDb, email: string, password: string): Promise<CredentialCheck> {
  const user = (await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst()) ?? null;
  const matches = await verifyPassword(user?.password_hash ?? null, password);
  if (!user) return { ok: false, user: null, reason: 'unknown-email' };
  if (!matches) return { ok: false, user, reason: 'wrong-password' };
  if (user.status !== 'active') return { ok: false, user, reason: 'not-active' };
  if (user.password_hash && (await hashCostDiffers(user.password_hash))) {
    // Made at an earlier SVC_PASSWORD_HASH: hashed again at today's. Only if the hash is still the
    // one verified, so a password changed meanwhile is never overwritten.
    const rehashed = await hashPassword(password);
    await db.updateTable('users').set({ password_hash: rehashed }).where('id', '=', user.id).where('password_hash', '=', user.password_hash).execute();
    return { ok: true, user: { ...user, password_hash: rehashed } };
  }
  return { ok: true, user };
}

/** True when the user has no 2FA yet holds a role the security policy requires it for. */
export async function twoFactorSetupRequired(kernel: Kernel, user: Pick<UserRow, 'id' | 'totp_enabled'>, roleIds?: string[]): Promise<boolean> {
  if (user.totp_enabled) return false;
  const { requireTwoFactorForRoles } = await kernel.plugin(settingsRef).security();
  if (requireTwoFactorForRoles.length === 0) return false;
  const held = roleIds ?? (await kernel.db.selectFrom('user_roles').select('role_id').where('user_id', '=', user.id).execute()).map((r) => r.role_id);
  return held.some((role) => requireTwoFactorForRoles.includes(role));
}

export interface SignedIn {
  user: User;
  twoFactorSetupRequired?: true;
}

/**
 * Opens a fresh session (new id and token, so a planted cookie is never promoted) and sets the
 * cookie. The session the browser presented, if any, ends: it is being replaced.
 */
export async function completeSignIn(kernel: Kernel, user: UserRow, request: FastifyRequest, reply: FastifyReply): Promise<SignedIn> {
  const now = kernel.now();
  const presented = presentedSessionToken(request);
  if (presented) await kernel.db.deleteFrom('sessions').where('token_hash', '=', hashToken(presented)).execute();
  const session = await kernel.identity.createSession(user.id, { ip: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null });
  await kernel.db.updateTable('users').set({ last_login_at: now }).where('id', '=', user.id).execute();
  setSessionCookie(reply, request, session.token, SESSION_ABSOLUTE_MS);
  const required = await twoFactorSetupRequired(kernel, user);
  return { user: toUser({ ...user, last_login_at: now }), ...(required ? { twoFactorSetupRequired: true as const } : {}) };
}
