import { lazyWithMessages, type Area } from '../area';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('add-ons');

const AddOns = lazy(() => import('./AddOns').then((m) => ({ default: m.AddOns })));
const AddOn = lazy(() => import('./AddOn').then((m) => ({ default: m.AddOn })));
const AppPage = lazy(() => import('./AppPage').then((m) => ({ default: m.AppPage })));
const ConnectCallback = lazy(() => import('./Connect').then((m) => ({ default: m.ConnectCallback })));
const Plan = lazy(() => import('./Plan').then((m) => ({ default: m.Plan })));

export const addOnsArea: Area = {
  // The apps' placed pages are in the one navigation (areas/pages/Nav.tsx, decisions DB30).
  nav: [{ path: '/add-ons', label: 'nav.addons', permission: 'add-ons.read' }],
  routes: [
    { path: '/add-ons', component: AddOns },
    { path: '/add-ons/:key/connect/callback', component: ConnectCallback },
    { path: '/apps/:appKey/:surface', component: AppPage },
    { path: '/add-ons/:key/versions/:version/plan', component: Plan },
    { path: '/add-ons/:key', component: AddOn },
  ],
};
