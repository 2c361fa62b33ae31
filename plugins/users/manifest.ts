import { definePlugin } from '../../kernel/plugin/manifest.js';

export default definePlugin({
  name: 'users',
  version: '1.0.0',
  description: 'Users, their statuses, invitations and role assignments.',
  requires: ['roles'],
  routes: [],
});
