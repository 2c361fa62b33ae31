import { definePlugin } from '../../kernel/api.js';
import { searchRoutes } from './routes.js';
import { SearchService } from './service.js';

/** The services of this process's instances (several in tests): their SQLite threads end with the plugin. */
const live = new Set<SearchService>();

export default definePlugin<SearchService>({
  name: 'search',
  version: '1.0.0',
  description: 'GET /search: names of pages, tables, connections, users, roles, add-ons and settings screens, and rows of searchable pages (issue 28 §3).',
  // The owners of what is found, read through their provides.ts.
  requires: ['pages', 'connections', 'schema', 'users', 'roles', 'add-ons'],
  routes: searchRoutes,
  setup: (kernel) => {
    const service = new SearchService(kernel);
    live.add(service);
    return service;
  },
  close: async () => {
    for (const s of live) await s.close();
    live.clear();
  },
});
