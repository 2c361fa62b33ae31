import { lazyWithMessages, type Area } from '../area';

const lazy = lazyWithMessages('dashboards');

/**
 * A dashboard page's screen: the pages area draws it at `/p/:slug` for a page of kind
 * `dashboard`. It is its own chunk (widgets and charts load only on dashboards).
 */
export const DashboardPage = lazy(() => import('./DashboardPage').then((m) => ({ default: m.DashboardPage })));

/** Dashboards have no entry and no route of their own: they are pages (issue 28). */
export const dashboardsArea: Area = { nav: [], routes: [] };
