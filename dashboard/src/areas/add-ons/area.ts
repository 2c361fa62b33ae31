import { lazy } from 'react';
import type { Area } from '../area';

const Placeholder = lazy(() => import('../../screens/Placeholder').then((m) => ({ default: () => m.AreaPlaceholder({ area: 'nav.addons' }) })));

export const addOnsArea: Area = {
  nav: [{ path: '/add-ons', label: 'nav.addons' }],
  routes: [{ path: '/add-ons', component: Placeholder }],
};
