import { lazy, type ComponentType } from 'react';

/** The shell's own screens under /account (preferences, notifications); App.tsx mounts them inside the Layout. */
export const SHELL_ROUTES: ReadonlyArray<{ path: string; component: ComponentType }> = [
  { path: '/account/profile', component: lazy(() => import('./Profile').then((m) => ({ default: m.Profile }))) },
  { path: '/account/preferences', component: lazy(() => import('./Preferences').then((m) => ({ default: m.Preferences }))) },
  { path: '/account/notifications', component: lazy(() => import('./Notifications').then((m) => ({ default: m.Notifications }))) },
];
