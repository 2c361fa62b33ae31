import type { Principal } from '../../../kernel/api.js';
import type { NavSurface, NavSurfaceSource } from '../../pages/provides.js';
import { ADDONS_USE } from '../runtime/action-routes.js';
import type { AddonService } from '../service.js';

/**
 * What the pages plugin's navigation may list of apps (decisions PG10): every installed app's
 * dashboard-page surfaces, and for a caller none unless it may use apps (add-ons.use).
 */
export function navSurfaces(service: () => AddonService): NavSurfaceSource {
  return async (principal: Principal | null): Promise<NavSurface[]> => {
    if (principal && !principal.permissions.has(ADDONS_USE)) return [];
    return (await service().installed.list()).flatMap((a) =>
      a.manifest.surfaces.filter((s) => s.kind === 'dashboard-page').map((s) => ({ appKey: a.key, surface: s.name, title: s.title, enabled: a.enabled })),
    );
  };
}
