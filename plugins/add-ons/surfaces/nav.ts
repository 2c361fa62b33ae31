import { type Kernel, MetaReadCache, type Principal } from '../../../kernel/api.js';
import type { NavSurface, NavSurfaceSource } from '../../pages/provides.js';
import { ADDONS_USE } from '../runtime/action-routes.js';
import type { AddonService } from '../service.js';

/**
 * What the pages plugin's navigation may list of apps (decisions PG10): every installed app's
 * dashboard-page surfaces, and for a caller none unless it may use apps (add-ons.use).
 */
export function navSurfaces(service: () => AddonService, writes: Kernel['meta']['writes']): NavSurfaceSource {
  // Kept between requests (K30): every bootstrap reads the navigation.
  const cache = new MetaReadCache<NavSurface[]>(writes, ['addons']);
  const all = async () =>
    (await service().installed.list()).flatMap((a) =>
      a.manifest.surfaces.filter((s) => s.kind === 'dashboard-page').map((s) => ({ appKey: a.key, surface: s.name, title: s.title, enabled: a.enabled })),
    );
  return async (principal: Principal | null): Promise<NavSurface[]> => {
    if (principal && !principal.permissions.has(ADDONS_USE)) return [];
    return cache.get('all', all);
  };
}
