import { AppError, hashPassword, type Kernel } from '../../kernel/api.js';
import { PASSWORD_RESET_TEMPLATE } from './mail-templates.js';

export const RESET_TOKEN_TTL_MS = 30 * 60_000;

export async function setPassword(kernel: Kernel, userId: string, password: string, activate: boolean): Promise<void> {
  const passwordHash = await hashPassword(password);
  let q = kernel.db.updateTable('users').set({ password_hash: passwordHash, updated_at: kernel.now() }).where('id', '=', userId);
  if (activate) q = q.set({ status: 'active' });
  await q.execute();
}

/**
 * Issues a reset token and mails the link when the e-mail belongs to an active user; does
 * nothing otherwise. Runs after the answer is sent, so the answer takes the same time either way.
 */
export async function mailResetLink(kernel: Kernel, email: string, base: string): Promise<void> {
  const user = await kernel.db.selectFrom('users').select(['id', 'name', 'email', 'status']).where('email', '=', email).executeTakeFirst();
  if (!user || user.status !== 'active') return;
  const token = await kernel.identity.issuePasswordToken(user.id, 'reset', RESET_TOKEN_TTL_MS);
  const link = `${base}/reset-password?token=${encodeURIComponent(token)}`;
  const sent = await kernel.mailer.sendTemplate(PASSWORD_RESET_TEMPLATE, 'en', user.email, { name: user.name, link, minutes: RESET_TOKEN_TTL_MS / 60_000 });
  if (!sent.sent) kernel.log.warn({ reason: sent.reason, userId: user.id }, 'password reset mail not sent');
}

/**
 * Spends a reset or invitation token and sets the password; an invitation also activates the
 * invited user. Every session of the user ends. Answers whose password it was.
 */
export async function resetPassword(kernel: Kernel, token: string, newPassword: string): Promise<{ userId: string; purpose: 'reset' | 'invite' }> {
  const spent = await kernel.identity.consumePasswordToken(token);
  if (!spent) throw new AppError('AUTH_RESET_TOKEN_INVALID');
  const user = await kernel.db.selectFrom('users').select(['id', 'status']).where('id', '=', spent.userId).executeTakeFirst();
  // A suspended user stays locked out: a link mailed before the suspension does not reopen the account.
  if (!user || user.status === 'suspended') throw new AppError('AUTH_RESET_TOKEN_INVALID');
  await setPassword(kernel, user.id, newPassword, spent.purpose === 'invite' && user.status === 'invited');
  await kernel.identity.endSessionsOf(user.id);
  return spent;
}
