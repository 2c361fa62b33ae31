import { definePlugin } from '../../kernel/api.js';
import { meRoutes } from './routes.js';
import { MeService } from './service.js';
import { meMigrations } from './tables.js';

export type { MeService } from './service.js';

export default definePlugin<MeService>({
  name: 'me',
  version: '1.0.0',
  description: 'The signed-in user: profile, preferences, notifications, saved layouts.',
  requires: ['settings'],
  migrations: meMigrations,
  routes: meRoutes,
  setup: (kernel) => new MeService(kernel),
});
