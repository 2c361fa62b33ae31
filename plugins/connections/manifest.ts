import { z } from 'zod';
import { definePlugin } from '../../kernel/api.js';
import { CONNECTION_ERRORS } from './errors.js';
import type { ConnectionsProvides } from './provides.js';
import { connectionRoutes } from './routes.js';
import { CONNECTIONS_CHANGED, ConnectionsService } from './service.js';
import { connectionsMigrations } from './tables.js';

export type { ConnectionsProvides } from './provides.js';

/**
 * The plugin's close() gets no kernel, so it cannot tell which app is closing: it closes the
 * pools of every service this module set up (one per process in production). A registry
 * reopens a pool on its next use, so another app in the same process (tests) only loses idle
 * connections, and its own close still finds it. Weak, so a closed app can be collected.
 */
const live = new Set<WeakRef<ConnectionsService>>();

export default definePlugin<ConnectionsProvides>({
  name: 'connections',
  version: '1.0.0',
  description: "Connections to the operators' own PostgreSQL, MySQL/MariaDB and SQLite databases, and their pools.",
  permissions: [
    {
      name: 'connections.read',
      label: 'See connections',
      description: 'List connections and their settings (never their URL or password).',
      roles: ['editor', 'viewer'],
    },
    { name: 'connections.write', label: 'Manage connections', description: 'Add, test, change and delete connections to databases.' },
  ],
  migrations: connectionsMigrations,
  events: {
    [CONNECTIONS_CHANGED]: {
      schema: z.strictObject({ id: z.string(), change: z.enum(['created', 'updated', 'deleted']) }),
      permission: 'connections.read',
      description: 'A connection was added, changed (settings included) or deleted.',
    },
  },
  errors: CONNECTION_ERRORS,
  routes: connectionRoutes,
  setup: (kernel) => {
    const service = new ConnectionsService(kernel);
    live.add(new WeakRef(service));
    return service;
  },
  close: async () => {
    const services: ConnectionsService[] = [];
    for (const ref of live) {
      const s = ref.deref();
      if (s) services.push(s);
      else live.delete(ref);
    }
    await Promise.all(services.map((s) => s.close()));
  },
});
