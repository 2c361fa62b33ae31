import { lazy } from 'react';
import type { Area } from '../area';

const AddOns = lazy(() => import('./AddOns').then((m) => ({ default: m.AddOns })));
const AddOn = lazy(() => import('./AddOn').then((m) => ({ default: m.AddOn })));
const Plan = lazy(() => import('./Plan').then((m) => ({ default: m.Plan })));

export const addOnsArea: Area = {
  nav: [{ path: '/add-ons', label: 'nav.addons' }],
  routes: [
    { path: '/add-ons', component: AddOns },
    { path: '/add-ons/:key/versions/:version/plan', component: Plan },
    { path: '/add-ons/:key', component: AddOn },
  ],
};
