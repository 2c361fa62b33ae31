import { lazy } from 'react';
import type { Area } from '../area';

const Placeholder = lazy(() => import('../../screens/Placeholder').then((m) => ({ default: () => m.AreaPlaceholder({ area: 'nav.connections' }) })));

export const connectionsArea: Area = {
  nav: [{ path: '/connections', label: 'nav.connections' }],
  routes: [{ path: '/connections', component: Placeholder }],
};
