import { definePlugin } from '../../kernel/plugin/manifest.js';

export default definePlugin({
  name: 'api-keys',
  version: '1.0.0',
  description: 'Role-bound API keys (adm_sk_).',
  requires: ['roles'],
  routes: [],
});
