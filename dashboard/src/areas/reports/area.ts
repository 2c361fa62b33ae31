import { lazyWithMessages, type Area } from '../area';
import { reportsLive } from './api';

const lazy = lazyWithMessages('reports');

const ReportList = lazy(() => import('./Reports').then((m) => ({ default: m.ReportList })));
const NewReport = lazy(() => import('./Reports').then((m) => ({ default: m.NewReport })));
const EditReport = lazy(() => import('./Reports').then((m) => ({ default: m.EditReport })));

/** Scheduled reports (issue 28 §4): the list, the form, run now and history. */
export const reportsArea: Area = {
  nav: [{ path: '/reports', label: 'nav.reports', permission: 'reports.read' }],
  routes: [
    { path: '/reports', component: ReportList },
    { path: '/reports/new', component: NewReport },
    { path: '/reports/:id', component: EditReport },
  ],
  live: reportsLive,
};
