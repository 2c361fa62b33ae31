import { definePlugin } from '../../kernel/plugin/manifest.js';

export default definePlugin({
  name: 'audit',
  version: '1.0.0',
  description: 'Reading the append-only audit trail.',
  routes: [],
});
