import type { MailTemplates } from '../../kernel/api.js';

export const PASSWORD_RESET_TEMPLATE = 'auth.password-reset';

/** Defaults; the e-mail templates plugin may store edited versions per locale. */
export function registerAuthMailTemplates(templates: MailTemplates): void {
  templates.register(PASSWORD_RESET_TEMPLATE, 'en', {
    subject: 'Reset your password',
    text: [
      'Hello {{name}},',
      '',
      'Someone, hopefully you, asked to reset the password of your account.',
      'Open this link within {{minutes}} minutes to choose a new password:',
      '',
      '{{link}}',
      '',
      'The link works once. If you did not ask for it, ignore this e-mail: your password stays as it is.',
      '',
    ].join('\n'),
  });
}
