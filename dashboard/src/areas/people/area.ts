import { lazy } from 'react';
import type { Area } from '../area';

const Users = lazy(() => import('../../screens/Placeholder').then((m) => ({ default: () => m.AreaPlaceholder({ area: 'nav.users' }) })));
const Audit = lazy(() => import('../../screens/Placeholder').then((m) => ({ default: () => m.AreaPlaceholder({ area: 'nav.audit' }) })));

export const peopleArea: Area = {
  nav: [
    { path: '/users', label: 'nav.users' },
    { path: '/audit', label: 'nav.audit' },
  ],
  routes: [
    { path: '/users', component: Users },
    { path: '/audit', component: Audit },
  ],
};
