import { lazyWithMessages, type Area } from '../area';
import { transferLive } from './api';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('transfer');

const ImportScreen = lazy(() => import('./ImportWizard').then((m) => ({ default: m.ImportScreen })));
const ExportScreen = lazy(() => import('./ExportScreen').then((m) => ({ default: m.ExportScreen })));
const JobsScreen = lazy(() => import('./JobsScreen').then((m) => ({ default: m.JobsScreen })));
const JobScreen = lazy(() => import('./JobsScreen').then((m) => ({ default: m.JobScreen })));

/** Imports, exports and the jobs page (screen 5). The grid links to the import and export screens of its table. */
export const transferArea: Area = {
  nav: [{ path: '/jobs', label: 'transfer.nav.jobs', permission: 'jobs.read' }],
  routes: [
    { path: '/connections/:conn/tables/:table/import', component: ImportScreen },
    { path: '/connections/:conn/tables/:table/export', component: ExportScreen },
    { path: '/jobs', component: JobsScreen },
    { path: '/jobs/:id', component: JobScreen },
  ],
  live: transferLive,
};
