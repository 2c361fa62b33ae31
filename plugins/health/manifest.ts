import { definePlugin } from '../../kernel/api.js';
import { healthRoutes } from './routes.js';

export default definePlugin({
  name: 'health',
  version: '1.0.0',
  description: 'Liveness, readiness, instance information, about and the update check.',
  permissions: [{ name: 'system.update-check', label: 'Check for updates', description: 'Ask whether a newer release exists.' }],
  routes: healthRoutes,
});
