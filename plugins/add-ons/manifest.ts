import { definePlugin } from '../../kernel/plugin/manifest.js';
import { ADDON_ERRORS } from './errors.js';
import { addonRoutes, ADDONS_MANAGE, ADDONS_READ } from './routes.js';
import { AddonService } from './service.js';
import { addonMigrations } from './tables.js';

export type { AddonService } from './service.js';

export default definePlugin<AddonService>({
  name: 'add-ons',
  version: '1.0.0',
  description: 'Add-ons (DESIGN §5): the catalog, staged packages, plans, install, upgrade, settings and removal.',
  requires: ['connections', 'schema', 'public-admin'],
  permissions: [
    { name: ADDONS_READ, label: 'See add-ons', description: 'See the add-on catalog, installed add-ons, staged packages and plans.' },
    {
      name: ADDONS_MANAGE,
      label: 'Manage add-ons',
      description: 'Set catalog sources, download and upload packages, install, upgrade, configure and remove add-ons.',
    },
  ],
  migrations: addonMigrations,
  errors: ADDON_ERRORS,
  routes: addonRoutes,
  setup: (kernel) => new AddonService(kernel),
});
