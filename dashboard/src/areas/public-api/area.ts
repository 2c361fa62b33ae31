import { lazy } from 'react';
import type { Area } from '../area';

const Placeholder = lazy(() => import('../../screens/Placeholder').then((m) => ({ default: () => m.AreaPlaceholder({ area: 'nav.publicApi' }) })));

export const publicApiArea: Area = {
  nav: [{ path: '/public-api', label: 'nav.publicApi' }],
  routes: [{ path: '/public-api', component: Placeholder }],
};
