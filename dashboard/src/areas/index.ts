import type { Area } from './area';
import { addOnsArea } from './add-ons/area';
import { connectionsArea } from './connections/area';
import { dataArea } from './data/area';
import { peopleArea } from './people/area';
import { publicApiArea } from './public-api/area';
import { settingsArea } from './settings/area';
import { transferArea } from './transfer/area';

/** Every area of the signed-in dashboard, in the order of the main navigation. */
export const AREAS: readonly Area[] = [connectionsArea, dataArea, transferArea, publicApiArea, addOnsArea, peopleArea, settingsArea];

export const NAV = AREAS.flatMap((area) => area.nav);
export const NAV_AFTER = AREAS.flatMap((area) => (area.navAfter ? [area.navAfter] : []));
export const AREA_ROUTES = AREAS.flatMap((area) => area.routes);
