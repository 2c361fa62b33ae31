import { definePlugin } from '../../kernel/api.js';
import { META_ERRORS } from './errors.js';
import { META_READ, META_RELOCATE, metaRoutes, RELOCATE_JOB, relocateJob } from './routes.js';

export default definePlugin({
  name: 'meta',
  version: '1.0.0',
  description: 'Where the instance keeps its own data, and moving it (decisions MR1–MR3).',
  permissions: [
    { name: META_READ, label: 'See the meta store placement', description: 'See which database holds the instance data (credentials are never shown).' },
    {
      name: META_RELOCATE,
      label: 'Move the meta store',
      description: 'Move the instance data to another database (PostgreSQL, MySQL/MariaDB) or back to the embedded file. Admins only.',
    },
  ],
  errors: META_ERRORS,
  routes: metaRoutes,
  jobs: { [RELOCATE_JOB]: relocateJob as never },
});
