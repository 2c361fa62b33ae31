import { definePlugin } from '../../kernel/api.js';
import { pagesRef } from '../pages/provides.js';
import { meRoutes } from './routes.js';
import { MeService } from './service.js';
import { meMigrations } from './tables.js';

export type { MeService } from './service.js';

export default definePlugin<MeService>({
  name: 'me',
  version: '1.0.0',
  description: 'The signed-in user: profile, preferences, notifications, saved layouts.',
  // Saved layouts are of pages: PUT answers 404 for a page the caller cannot see, and a page's delete takes its layouts along (ME6).
  requires: ['settings', 'pages'],
  migrations: meMigrations,
  routes: meRoutes,
  setup: (kernel) => {
    const service = new MeService(kernel);
    kernel.plugin(pagesRef).addDependent({ removePage: (pageId, trx) => service.layouts.removePage(pageId, trx) });
    kernel.plugin(pagesRef).setPersonalLayouts(async (userId, pageId) => {
      const saved = await service.layouts.get(userId, pageId);
      return saved ? { layout: saved.layout, updatedAt: saved.updatedAt } : null;
    });
    return service;
  },
});
