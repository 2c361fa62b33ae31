import { z } from 'zod';
import { definePlugin } from '../../kernel/api.js';
import type { PagesProvides } from './provides.js';
import { configRoutes } from './config/routes.js';
import { layoutRoutes } from './layout/routes.js';
import { navRoutes } from './nav/routes.js';
import { pageRoutes } from './routes.js';
import { PAGES_CHANGED, PAGES_NAV_CHANGED, PagesStore } from './store.js';
import { pagesMigrations } from './tables.js';
import { viewRoutes } from './views/routes.js';

export type { NewPage, Page, PageKind, PagesProvides } from './provides.js';

export default definePlugin<PagesProvides>({
  name: 'pages',
  version: '0.3.0',
  description: "Pages of the dashboard: generation's and the operators' own, who sees them, their views and layouts, and the one navigation (apps' pages too).",
  // visibleTo names roles: they are checked against the roles plugin.
  requires: ['roles'],
  permissions: [
    {
      name: 'pages.read',
      label: 'See pages',
      description: 'List and open the pages one may see (their roles and table grants decide).',
      roles: ['editor', 'viewer'],
    },
    { name: 'pages.write', label: 'Edit pages', description: 'Create, change, copy and delete pages.', roles: ['editor'] },
    { name: 'pages.admin', label: 'Arrange the navigation', description: "Order the navigation's sections and entries." },
  ],
  migrations: pagesMigrations,
  events: {
    [PAGES_CHANGED]: {
      schema: z.strictObject({ pageId: z.string() }),
      permission: 'pages.read',
      description: 'A page was created, changed, copied or deleted.',
    },
    [PAGES_NAV_CHANGED]: {
      schema: z.strictObject({}),
      permission: 'pages.read',
      description: 'What the navigation lists changed (a page added, renamed, re-iconed, hidden or removed; the navigation arranged; an app placed).',
    },
  },
  errors: {
    PAGE_IN_USE: {
      status: 409,
      message: 'This page is in use (params name what uses it, e.g. params.reports); remove that first.',
    },
  },
  routes: [...pageRoutes, ...configRoutes, ...layoutRoutes, ...viewRoutes, ...navRoutes],
  setup: (kernel) => new PagesStore(kernel.db, () => kernel.now(), kernel.events, kernel.meta.writes),
});
