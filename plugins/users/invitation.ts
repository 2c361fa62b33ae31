import type { Kernel } from '../../kernel/api.js';

export const INVITATION_TEMPLATE = 'users.invitation';
export const INVITE_TTL_MS = 7 * 24 * 3600_000;

export function registerInvitationTemplate(kernel: Kernel): void {
  kernel.mailer.templates.register(INVITATION_TEMPLATE, 'en', {
    subject: '{{inviter}} invited you to the administration dashboard',
    text:
      'Hello {{name}},\n\n{{inviter}} invited you to the administration dashboard. Choose a password to activate your account:\n\n{{link}}\n\n' +
      'The link works once and expires in {{days}} days. If you did not expect this invitation, ignore this e-mail.\n',
    html:
      '<p>Hello {{name}},</p><p>{{inviter}} invited you to the administration dashboard. Choose a password to activate your account:</p>' +
      '<p><a href="{{link}}">{{link}}</a></p><p>The link works once and expires in {{days}} days. If you did not expect this invitation, ignore this e-mail.</p>',
  });
}

/**
 * Issues a fresh set-password token (withdrawing earlier ones) and mails the link on `base`
 * (`linkBase`, asked before anything is changed, so a refusal leaves nothing half done). The mail
 * goes out after the response: when it fails, the caller's operation has still succeeded, and the
 * response does not depend on the mail server's speed. Without SMTP nothing is sent and the link
 * is returned unmailed (DB47): the caller may hand it to the inviter, who can already set the
 * user's password outright (users.write).
 */
export async function sendInvitation(
  kernel: Kernel,
  base: string,
  user: { id: string; email: string; name: string },
  inviter: string | null,
): Promise<{ link: string; mailed: boolean }> {
  const token = await kernel.identity.issuePasswordToken(user.id, 'invite', INVITE_TTL_MS);
  const link = `${base}/accept-invite?token=${encodeURIComponent(token)}`;
  const vars = { name: user.name, inviter: inviter ?? 'An administrator', link, days: INVITE_TTL_MS / (24 * 3600_000) };
  // Without SMTP no mail can go: the link is handed back for the inviter to pass on instead.
  if (!(await kernel.mailer.configured())) return { link, mailed: false };
  void kernel.mailer
    .sendTemplate(INVITATION_TEMPLATE, 'en', user.email, vars)
    .then((result) => {
      if (!result.sent) kernel.log.info({ userId: user.id, reason: result.reason }, 'invitation not mailed');
    })
    .catch((err: Error) => kernel.log.warn({ userId: user.id, err: { message: err.message } }, 'invitation not mailed'));
  return { link, mailed: true };
}
