import { lazyWithMessages, type Area } from '../area';
import { pagesKeys } from './api';
import { PagesNav } from './Nav';
import { pageRoute } from './PageRoute';
import { loadDataMessages } from '../data/area';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('pages');

// A page draws the data area's grid and row screens: their strings come along.
const PageScreen = lazy(() => Promise.all([import('./PageScreen'), loadDataMessages()]).then(([m]) => ({ default: m.PageScreen })));
const PageRoute = pageRoute(PageScreen);
const PageList = lazy(() => import('./Editor').then((m) => ({ default: m.PageList })));
const NewPage = lazy(() => import('./Editor').then((m) => ({ default: m.NewPage })));
const EditPage = lazy(() => import('./Editor').then((m) => ({ default: m.EditPage })));
const NavEditor = lazy(() => import('./NavEditor').then((m) => ({ default: m.NavEditor })));

/** The pages people build (issue 28): in the navigation, at /p/{slug}, and their editor at /pages (decision DB29). */
export const pagesArea: Area = {
  nav: [{ path: '/pages', label: 'nav.pagesEditor', permission: 'pages.write' }],
  navAfter: PagesNav,
  routes: [
    { path: '/pages', component: PageList },
    { path: '/pages/new', component: NewPage },
    { path: '/pages/nav', component: NavEditor },
    { path: '/pages/:id/edit', component: EditPage },
    { path: '/p/:slug/:recordId', component: PageRoute },
    { path: '/p/:slug', component: PageRoute },
  ],
  live: { 'pages.changed': [pagesKeys.all], 'pages.nav.changed': [pagesKeys.nav] },
};
