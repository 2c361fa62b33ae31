import { definePlugin } from '../../kernel/api.js';
import { searchRoutes } from './routes.js';
import { SearchService } from './service.js';

export default definePlugin<SearchService>({
  name: 'search',
  version: '1.0.0',
  description: 'GET /search: names of pages, tables, connections, users, roles, add-ons and settings screens, and rows of searchable pages (issue 28 §3).',
  // The owners of what is found, read through their provides.ts.
  requires: ['pages', 'connections', 'schema', 'users', 'roles', 'add-ons'],
  routes: searchRoutes,
  setup: (kernel) => new SearchService(kernel),
});
