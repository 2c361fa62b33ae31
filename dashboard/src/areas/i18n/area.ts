import { lazyWithMessages, type Area } from '../area';
import { i18nLive } from './api';

// React's lazy(), loading the area's strings (i18n/<locale>/i18n.json) with each screen's code.
const lazy = lazyWithMessages('i18n');

const Languages = lazy(() => import('./Languages').then((m) => ({ default: m.Languages })));
const Editor = lazy(() => import('./Editor').then((m) => ({ default: m.Editor })));

/**
 * Languages and translations (issue 31, IN20): an area of its own (its namespace `i18n`), whose
 * screens sit under Settings (/settings/languages, linked from the settings' sections) and have no
 * entry of their own in the main navigation.
 */
export const i18nArea: Area = {
  nav: [],
  routes: [
    { path: '/settings/languages', component: Languages },
    { path: '/settings/languages/:locale', component: Editor },
  ],
  live: i18nLive,
};
