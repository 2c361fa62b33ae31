import { definePlugin } from '../../kernel/plugin/manifest.js';

export default definePlugin({
  name: 'roles',
  version: '1.0.0',
  description: 'Built-in and custom roles, their grants, and the permission catalog.',
  routes: [],
});
