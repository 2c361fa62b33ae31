import { z } from 'zod';
import { definePlugin } from '../../kernel/api.js';
import { actionRoutes, ADDONS_USE } from './runtime/action-routes.js';
import { ADDON_ERRORS } from './errors.js';
import { addonRoutes, ADDONS_MANAGE, ADDONS_READ } from './routes.js';
import type { AddonsOptions } from './options.js';
import { addonServiceRef, AddonService } from './service.js';
import { SCHEDULE_JOB } from './runtime/runtime.js';
import { navSurfaces } from './surfaces/nav.js';
import { surfaceRoutes } from './surfaces/surface-routes.js';
import { pagesRef } from '../pages/provides.js';
import { addonMigrations } from './tables.js';

export type { AddonService } from './service.js';
export type { AddonsOptions } from './options.js';

/** The add-ons plugin, its parts built with `options` (tests' switches; the server passes none). */
export function createAddonsPlugin(options: AddonsOptions = {}) {
  /** close() gets no kernel: it stops the runtimes this plugin started (one per app; tests start several). */
  const live = new Set<WeakRef<AddonService>>();
  return definePlugin<AddonService>({
    name: 'add-ons',
    version: '1.0.0',
    description: 'Add-ons (DESIGN §5): the catalog, staged packages, plans, install, upgrade, settings and removal.',
    // pages: apps' dashboard pages are entries of the one navigation (decisions PG10).
    requires: ['connections', 'schema', 'public-admin', 'public-api', 'me', 'pages'],
    permissions: [
      {
        name: ADDONS_USE,
        label: "Use add-ons' actions",
        description: "Call installed apps' actions from the dashboard (their app keys call them from outside).",
        roles: ['editor'],
      },
      { name: ADDONS_READ, label: 'See add-ons', description: 'See the add-on catalog, installed add-ons, staged packages and plans.' },
      {
        name: ADDONS_MANAGE,
        label: 'Manage add-ons',
        description: 'Set catalog sources, download and upload packages, install, upgrade, configure and remove add-ons.',
      },
    ],
    migrations: addonMigrations,
    errors: ADDON_ERRORS,
    routes: [...addonRoutes, ...actionRoutes, ...surfaceRoutes],
    jobs: {
      [SCHEDULE_JOB]: {
        permission: ADDONS_READ,
        description: "Runs an add-on's schedule:<cron> hook once (queued by the schedule; replicas sharing the meta store run it once).",
        maxAttempts: 1,
        schema: z.object({ key: z.string(), hook: z.string(), dueAt: z.number() }),
        handler: async ({ kernel, payload }) => {
          const p = payload as { key: string; hook: string; dueAt: number };
          return kernel.plugin(addonServiceRef).runtime.runSchedule(p.key, p.hook, p.dueAt);
        },
      },
    },
    setup: async (kernel) => {
      const service = new AddonService(kernel, options);
      kernel.plugin(pagesRef).setNavSurfaces(navSurfaces(() => service, kernel.meta.writes));
      await service.runtime.start();
      await service.domains.start();
      live.add(new WeakRef(service));
      return service;
    },
    close: async () => {
      for (const ref of live) {
        ref.deref()?.runtime.close();
        ref.deref()?.domains.close();
        live.delete(ref);
      }
    },
  });
}

export default createAddonsPlugin();
