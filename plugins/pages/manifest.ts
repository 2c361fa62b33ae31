import { definePlugin } from '../../kernel/api.js';
import type { PagesProvides } from './provides.js';
import { PagesStore } from './store.js';
import { pagesDb, pagesMigrations } from './tables.js';

export type { NewPage, Page, PageKind, PagesProvides } from './provides.js';

export default definePlugin<PagesProvides>({
  name: 'pages',
  version: '0.1.0',
  description: 'Pages of the dashboard: for now the store that generation writes; the routes come with the pages issue.',
  migrations: pagesMigrations,
  setup: (kernel) => new PagesStore(pagesDb(kernel.db), () => kernel.now()),
});
