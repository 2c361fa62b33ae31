import { lazyWithMessages, type Area } from '../area';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('people');

const Users = lazy(() => import('./Users').then((m) => ({ default: m.Users })));
const UserPage = lazy(() => import('./User').then((m) => ({ default: m.UserPage })));
const Roles = lazy(() => import('./Roles').then((m) => ({ default: m.Roles })));
const RolePage = lazy(() => import('./Role').then((m) => ({ default: m.RolePage })));
const ApiKeys = lazy(() => import('./ApiKeys').then((m) => ({ default: m.ApiKeys })));
const Audit = lazy(() => import('./Audit').then((m) => ({ default: m.Audit })));
const AuditEntryPage = lazy(() => import('./Audit').then((m) => ({ default: m.AuditEntryPage })));

/** People and access (DESIGN §8, screen 6): users, roles and their permissions, API keys, the audit log. */
export const peopleArea: Area = {
  nav: [
    { path: '/users', label: 'nav.users', permission: 'users.read' },
    { path: '/roles', label: 'people.nav.roles', permission: 'roles.read' },
    { path: '/api-keys', label: 'people.nav.apiKeys', permission: 'api-keys.read' },
    { path: '/audit', label: 'nav.audit', permission: 'audit.read' },
  ],
  routes: [
    { path: '/users', component: Users },
    { path: '/users/:id', component: UserPage },
    { path: '/roles', component: Roles },
    { path: '/roles/:id', component: RolePage },
    { path: '/api-keys', component: ApiKeys },
    { path: '/audit', component: Audit },
    { path: '/audit/:id', component: AuditEntryPage },
  ],
};
