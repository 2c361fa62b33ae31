import { definePlugin } from '../../kernel/api.js';
import { eventRoutes } from './routes.js';

export default definePlugin({
  name: 'events',
  version: '1.0.0',
  description: 'Server-sent events: the fallback of the /ws realtime channel.',
  routes: eventRoutes,
});
