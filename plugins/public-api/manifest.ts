import { definePlugin, provideAudience } from '../../kernel/api.js';
import { PUBLIC_ERRORS } from './errors.js';
import { installPublicPreflight, publicKeyGate, publicKeyOrStaffGate } from './http/install.js';
import { publicKeyAudience, publicKeyOrStaffAudience } from './provides.js';
import { PLUGIN, publicRoutes } from './routes.js';
import { PublicApi } from './service.js';
import { publicApiMigrations } from './tables.js';

/**
 * The public API's data plane: outside pages and backends read and write the rows the control
 * plane (public-admin) exposes, with public keys, customer sessions, bookings and limits.
 */
export default definePlugin<PublicApi>({
  name: PLUGIN,
  version: '1.0.0',
  description: 'The public API: endpoints, bookings and customer sessions for outside pages and backends, under /public.',
  requires: ['connections', 'schema', 'public-admin'],
  migrations: publicApiMigrations,
  errors: PUBLIC_ERRORS,
  routes: publicRoutes,
  audiences: [
    provideAudience(publicKeyAudience, (api: PublicApi, kernel) => publicKeyGate(kernel, api)),
    provideAudience(publicKeyOrStaffAudience, (api: PublicApi, kernel) => publicKeyOrStaffGate(kernel, api)),
  ],
  setup: (kernel) => new PublicApi(kernel),
  http: (app, kernel, api) => {
    installPublicPreflight(app, kernel);
    app.addHook('onClose', async () => api.close());
  },
});
