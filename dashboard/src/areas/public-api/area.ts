import { lazyWithMessages, type Area } from '../area';
import { publicApiLive } from './api';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('public-api');

const Overview = lazy(() => import('./Overview').then((m) => ({ default: m.Overview })));
const Endpoints = lazy(() => import('./Endpoints').then((m) => ({ default: m.Endpoints })));
const EndpointEditor = lazy(() => import('./EndpointEditor').then((m) => ({ default: m.EndpointEditor })));
const Keys = lazy(() => import('./Keys').then((m) => ({ default: m.Keys })));
const Templates = lazy(() => import('./Templates').then((m) => ({ default: m.Templates })));
const TemplateEditor = lazy(() => import('./TemplateEditor').then((m) => ({ default: m.TemplateEditor })));

/** Screen 7 (issue 14): the switch and its origins, endpoints, keys, e-mail templates. */
export const publicApiArea: Area = {
  nav: [{ path: '/public-api', label: 'nav.publicApi', permission: 'public-api.read' }],
  routes: [
    { path: '/public-api', component: Overview },
    { path: '/public-api/endpoints', component: Endpoints },
    { path: '/public-api/endpoints/:ref', component: EndpointEditor },
    { path: '/public-api/keys', component: Keys },
    { path: '/public-api/email-templates', component: Templates },
    { path: '/public-api/email-templates/:key/:locale', component: TemplateEditor },
  ],
  live: publicApiLive,
};
