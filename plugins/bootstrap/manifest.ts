import { definePlugin } from '../../kernel/api.js';
import { bootstrapRoutes } from './routes.js';
import { BootstrapService } from './service.js';
import { bootstrapMigrations } from './tables.js';

export type { BootstrapService } from './service.js';

export default definePlugin<BootstrapService>({
  name: 'bootstrap',
  version: '1.0.0',
  description: "The dashboard's first paint in one request (GET /bootstrap) and the onboarding checklist.",
  requires: ['setup', 'settings', 'branding', 'me', 'pages', 'connections', 'public-admin', 'add-ons'],
  migrations: bootstrapMigrations,
  routes: bootstrapRoutes,
  setup: (kernel) => new BootstrapService(kernel),
});
