import { definePlugin } from '../../kernel/plugin/manifest.js';

export default definePlugin({
  name: 'me',
  version: '1.0.0',
  description: 'The signed-in user: profile, preferences, notifications, saved layouts.',
  requires: ['settings'],
  routes: [],
});
