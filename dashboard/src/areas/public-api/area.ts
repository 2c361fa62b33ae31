import { lazy } from 'react';
import type { Area } from '../area';

const Overview = lazy(() => import('./Overview').then((m) => ({ default: m.Overview })));

/** Screen 7 (issue 14): the switch and its origins, endpoints, keys, e-mail templates. */
export const publicApiArea: Area = {
  nav: [{ path: '/public-api', label: 'nav.publicApi' }],
  routes: [{ path: '/public-api', component: Overview }],
};
