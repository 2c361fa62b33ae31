import { definePlugin } from '../../kernel/api.js';
import type { SetupProvides } from './provides.js';
import { setupRoutes } from './routes.js';
import { isSetupOpen } from './service.js';

export default definePlugin<SetupProvides>({
  name: 'setup',
  version: '1.0.0',
  description: 'First-boot creation of the super admin (D5).',
  routes: setupRoutes,
  setup: (kernel) => ({ isOpen: () => isSetupOpen(kernel.db) }),
});
