import { lazyWithMessages, type Area } from '../area';
import { settingsKeys } from './api';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('settings');

const Overview = lazy(() => import('./Overview').then((m) => ({ default: m.Overview })));
const Defaults = lazy(() => import('./Defaults').then((m) => ({ default: m.Defaults })));
const Email = lazy(() => import('./Email').then((m) => ({ default: m.Email })));
const Security = lazy(() => import('./Security').then((m) => ({ default: m.Security })));
const Branding = lazy(() => import('./Branding').then((m) => ({ default: m.Branding })));
const Telemetry = lazy(() => import('./Telemetry').then((m) => ({ default: m.Telemetry })));

export const settingsArea: Area = {
  nav: [{ path: '/settings', label: 'nav.settings', permission: 'settings.read' }],
  live: { 'branding.changed': [settingsKeys.workspace] },
  routes: [
    { path: '/settings', component: Overview },
    { path: '/settings/defaults', component: Defaults },
    { path: '/settings/email', component: Email },
    { path: '/settings/security', component: Security },
    { path: '/settings/branding', component: Branding },
    { path: '/settings/telemetry', component: Telemetry },
  ],
};
