import { lazy } from 'react';
import type { Area } from '../area';

const Placeholder = lazy(() => import('../../screens/Placeholder').then((m) => ({ default: () => m.AreaPlaceholder({ area: 'nav.settings' }) })));

export const settingsArea: Area = {
  nav: [{ path: '/settings', label: 'nav.settings' }],
  routes: [{ path: '/settings', component: Placeholder }],
};
