import { connectionsRef } from '../connections/provides.js';
import { pagesRef } from '../pages/provides.js';
import { z } from 'zod';
import { definePlugin, type JobDeclaration } from '../../kernel/api.js';
import { introspect } from '../../engine/schema/introspect/index.js';
import { SCHEMA_READ } from './access.js';
import { INTROSPECT_JOB, introspectJob } from './jobs.js';
import type { SchemaProvides } from './provides.js';
import { schemaRoutes } from './routes.js';
import { SchemaService } from './service.js';
import { schemaMigrations } from './tables.js';

export type { EffectiveSchema, SchemaProvides } from './provides.js';

export default definePlugin<SchemaProvides>({
  name: 'schema',
  version: '1.0.0',
  description: "Snapshots of each connection's schema, their diffs, display overrides, and page generation.",
  requires: ['connections', 'pages'],
  migrations: schemaMigrations,
  events: {
    'schema.changed': {
      schema: z.object({ connectionId: z.string(), snapshotId: z.string(), previousSnapshotId: z.string().nullable() }),
      permission: SCHEMA_READ,
      description: "An introspection found a new structure and stored a snapshot (previousSnapshotId null on the connection's first).",
    },
  },
  errors: {
    SCHEMA_NOT_INTROSPECTED: { status: 404, message: 'This connection has not been introspected yet; POST /connections/{id}/introspect first.' },
  },
  routes: schemaRoutes,
  jobs: { [INTROSPECT_JOB]: introspectJob as JobDeclaration },
  setup: (kernel) => {
    const service = new SchemaService(kernel, (db, dialect) => introspect(db, dialect));
    const connections = kernel.plugin(connectionsRef);
    // Pages check configs, views and new pages against the effective schema; they cannot require schema (decisions PG4).
    kernel.plugin(pagesRef).setTableReader((connectionId, ref) => service.table(connectionId, ref));
    connections.onRemove((id, trx) => service.removeConnection(id, trx));
    // A new connection is read at once, so its first GET /data does not answer SCHEMA_NOT_INTROSPECTED.
    connections.introspectOnCreate(async (id) => {
      const { snapshot } = await service.introspect(id);
      return { snapshotId: snapshot.id, tableCount: snapshot.tableCount, viewCount: snapshot.viewCount, columnCount: snapshot.columnCount };
    });
    return service;
  },
});
