import { definePlugin } from '../../kernel/api.js';
import { apiKeyRoutes } from './routes.js';
import { ApiKeysService } from './service.js';

export default definePlugin<ApiKeysService>({
  name: 'api-keys',
  version: '1.0.0',
  description: 'Role-bound API keys (adm_sk_).',
  requires: ['roles'],
  // Administration only: a key acts with a role across the whole API.
  permissions: [
    { name: 'api-keys.read', label: 'See API keys', description: 'List API keys (names, roles, prefixes; never secrets).' },
    { name: 'api-keys.write', label: 'Manage API keys', description: 'Create API keys from a signed-in session, and revoke them.' },
  ],
  routes: apiKeyRoutes,
  setup: (kernel) => new ApiKeysService(kernel.db, () => kernel.now()),
});
