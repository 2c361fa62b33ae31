import { definePlugin } from '../../kernel/api.js';
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
  },
  routes: authRoutes,
  setup: (kernel) => {
    registerAuthMailTemplates(kernel.mailer.templates);
    return new AuthService(kernel);
  },
});
