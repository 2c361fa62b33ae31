import type { QueryKey } from '@tanstack/react-query';
import type { Area, AreaRoute } from './area';
import { accountArea } from './account/area';
import { addOnsArea } from './add-ons/area';
import { connectionsArea } from './connections/area';
import { dataArea } from './data/area';
import { i18nArea } from './i18n/area';
import { dashboardsArea } from './dashboards/area';
import { pagesArea } from './pages/area';
import { peopleArea } from './people/area';
import { publicApiArea } from './public-api/area';
import { reportsArea } from './reports/area';
import { llmArea } from './llm/area';
import { settingsArea } from './settings/area';
import { transferArea } from './transfer/area';

/** Every area of the dashboard, in the order of the main navigation (the account has no entry there). */
export const AREAS: readonly Area[] = [
  accountArea,
  connectionsArea,
  dataArea,
  transferArea,
  publicApiArea,
  addOnsArea,
  pagesArea,
  dashboardsArea,
  reportsArea,
  llmArea,
  peopleArea,
  settingsArea,
  i18nArea,
];

export const NAV = AREAS.flatMap((area) => area.nav);
export const NAV_AFTER = AREAS.flatMap((area) => (area.navAfter ? [area.navAfter] : []));
/** Every area's routes, in order: App.tsx mounts them (an area's routes are the one way to add a screen). */
export const AREA_ROUTES: readonly AreaRoute[] = AREAS.flatMap((area) => area.routes);

/** The event kinds some area refreshes its queries on (Area.live): the shell's live channel listens for these. */
export const LIVE_KINDS: readonly string[] = [...new Set(AREAS.flatMap((area) => Object.keys(area.live ?? {})))].sort();

/**
 * The query keys an event makes stale, from every area's declaration. A key another one covers
 * (a longer key with the same start) is left out: invalidating it as well would only ask again.
 */
export function staleKeys(kind: string, data: unknown, areas: readonly Area[] = AREAS): QueryKey[] {
  const keys = areas.flatMap((area) => {
    const declared = area.live?.[kind];
    if (!declared) return [];
    return typeof declared === 'function' ? declared(data) : declared;
  });
  return keys.filter((key, i) => !keys.some((other, j) => j !== i && covers(other, key) && (!covers(key, other) || j < i)));
}

/** Whether invalidating `prefix` reaches `key` (the way TanStack Query matches a key's start). */
function covers(prefix: QueryKey, key: QueryKey): boolean {
  return prefix.length <= key.length && prefix.every((part, i) => JSON.stringify(part) === JSON.stringify(key[i]));
}
