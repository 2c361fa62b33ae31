import { definePlugin } from '../../kernel/plugin/manifest.js';

export default definePlugin({
  name: 'auth',
  version: '1.0.0',
  description: 'Sign-in, sessions, passwords and two-factor authentication.',
  requires: ['settings'],
  routes: [],
});
