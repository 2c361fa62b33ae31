import { definePlugin } from '../../kernel/api.js';
import { setupRoutes } from './routes.js';

export default definePlugin({
  name: 'setup',
  version: '1.0.0',
  description: 'First-boot creation of the super admin (D5).',
  routes: setupRoutes,
});
