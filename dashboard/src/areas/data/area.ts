import { loadNamespace } from '../../i18n/t';
import { lazyWithMessages, type Area } from '../area';
import { dataKeys } from './api';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('data');

const GridScreen = lazy(() => import('./Grid').then((m) => ({ default: m.GridScreen })));
const RowDetailScreen = lazy(() => import('./RowDetail').then((m) => ({ default: m.RowDetailScreen })));

/** The grid of a table and a row's detail (reached from a connection's tables, not the main navigation). */
export const dataArea: Area = {
  nav: [],
  routes: [
    { path: '/connections/:conn/tables/:table/rows/:recordId', component: RowDetailScreen },
    { path: '/connections/:conn/tables/:table', component: GridScreen },
  ],
  // Every key of the area starts with 'data'; the grid and a row's page also follow each change themselves.
  live: { 'data.changed': [dataKeys.all] },
};

/** The area's strings, for another area's screen that draws the grid or a row (a page at /p/{slug}). */
export const loadDataMessages = () => loadNamespace('data');
