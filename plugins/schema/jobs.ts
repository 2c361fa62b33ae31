import type { JobDeclaration } from '../../kernel/api.js';
import { SCHEMA_WRITE } from './access.js';
import { schemaServiceRef } from './service.js';

export const INTROSPECT_JOB = 'schema.introspect';

/** Past this many tables (in the latest snapshot) an introspection runs as a job by itself. */
export const LARGE_SCHEMA_TABLES = 500;

/** Introspection in the background, for schemas too large to read inside one request. */
export const introspectJob: JobDeclaration<{ connectionId: string }> = {
  permission: SCHEMA_WRITE,
  description: 'Introspects a connection and stores a snapshot when its structure changed.',
  maxAttempts: 2,
  async handler(ctx) {
    await ctx.progress(0, null, 'reading the schema');
    const result = await ctx.kernel.plugin(schemaServiceRef).introspect(ctx.payload.connectionId);
    return { snapshotId: result.snapshot.id, created: result.created, tableCount: result.snapshot.tableCount };
  },
};
