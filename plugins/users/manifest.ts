import { definePlugin } from '../../kernel/api.js';
import { registerInvitationTemplate } from './invitation.js';
import { userRoleRoutes } from './role-routes.js';
import { userRoutes } from './routes.js';
import { UsersService } from './service.js';

export default definePlugin<UsersService>({
  name: 'users',
  version: '1.0.0',
  description: 'Users, their statuses, invitations and role assignments.',
  requires: ['roles'],
  // Administration only: the user list holds every e-mail address, and writing it hands out roles.
  permissions: [
    { name: 'users.read', label: 'See users', description: 'List users and see their status and roles.' },
    { name: 'users.write', label: 'Manage users', description: 'Create, invite, change, suspend and delete users and assign their roles.' },
  ],
  routes: [...userRoutes, ...userRoleRoutes],
  setup: (kernel) => {
    registerInvitationTemplate(kernel);
    return new UsersService(kernel);
  },
});
