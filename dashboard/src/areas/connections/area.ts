import { lazyWithMessages, type Area } from '../area';
import { connectionsLive } from './api';
import { ConnectionsNavTree } from './NavTree';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('connections');

const ConnectionList = lazy(() => import('./List').then((m) => ({ default: m.ConnectionList })));
const NewConnection = lazy(() => import('./Wizard').then((m) => ({ default: m.NewConnection })));
const EditConnection = lazy(() => import('./Wizard').then((m) => ({ default: m.EditConnection })));
const ConnectionOverview = lazy(() => import('./Overview').then((m) => ({ default: m.ConnectionOverview })));
const SchemaBrowser = lazy(() => import('./SchemaBrowser').then((m) => ({ default: m.SchemaBrowser })));
const Snapshots = lazy(() => import('./Snapshots').then((m) => ({ default: m.Snapshots })));
const Overrides = lazy(() => import('./Overrides').then((m) => ({ default: m.Overrides })));
const Generate = lazy(() => import('./Generate').then((m) => ({ default: m.Generate })));
const DeleteConnection = lazy(() => import('./Delete').then((m) => ({ default: m.DeleteConnection })));

/**
 * Connections (DESIGN §8): the list, adding one (test before save), and each connection's page
 * with its sections. `/connections/:id/tables/:table` is the data area's grid.
 */
export const connectionsArea: Area = {
  nav: [{ path: '/connections', label: 'nav.connections', below: ConnectionsNavTree, permission: 'connections.read' }],
  routes: [
    { path: '/connections', component: ConnectionList },
    { path: '/connections/new', component: NewConnection },
    { path: '/connections/:id', component: ConnectionOverview },
    { path: '/connections/:id/edit', component: EditConnection },
    { path: '/connections/:id/schema', component: SchemaBrowser },
    { path: '/connections/:id/snapshots', component: Snapshots },
    { path: '/connections/:id/overrides', component: Overrides },
    { path: '/connections/:id/generate', component: Generate },
    { path: '/connections/:id/delete', component: DeleteConnection },
  ],
  live: connectionsLive,
};
