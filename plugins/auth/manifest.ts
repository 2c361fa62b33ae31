import { definePlugin } from '../../kernel/plugin/manifest.js';
import { registerAuthMailTemplates } from './mail-templates.js';
import { authMigrations } from './migrations.js';
import { authRoutes } from './routes.js';
import { AuthService } from './service.js';

export type { AuthService } from './service.js';

export default definePlugin<AuthService>({
  name: 'auth',
  version: '1.0.0',
  description: 'Sign-in, sessions, passwords and two-factor authentication.',
  requires: ['settings'],
  migrations: authMigrations,
  errors: {
    AUTH_RESET_TOKEN_INVALID: { status: 400, message: 'The link is unknown, already used or expired; ask for a new one.' },
    // Same code and status as the me plugin declares: an adm_sk_ key acts for a role, with no user behind it.
    SESSION_REQUIRED: { status: 403, message: 'This operation acts on the signed-in user; an API key has no user.' },
  },
  routes: authRoutes,
  setup: (kernel) => {
    registerAuthMailTemplates(kernel.mailer.templates);
    return new AuthService(kernel);
  },
});
