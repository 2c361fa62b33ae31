import { definePlugin } from '../../kernel/api.js';
import { catalogRoutes } from './catalog-routes.js';
import { roleRoutes } from './routes.js';
import { RolesService } from './service.js';

export default definePlugin<RolesService>({
  name: 'roles',
  version: '1.0.0',
  description: 'Built-in and custom roles, their grants, and the permission catalog.',
  // Administration only: editors and viewers neither see nor manage roles (a custom role can be granted these).
  permissions: [
    { name: 'roles.read', label: 'See roles', description: 'List roles, their grants and the permission catalog.' },
    { name: 'roles.write', label: 'Manage roles', description: 'Create, rename and delete custom roles and choose their grants.' },
  ],
  routes: [...roleRoutes, ...catalogRoutes],
  setup: (kernel) => new RolesService(kernel),
});
