import { z } from 'zod';
import {
  AppError,
  cursorField,
  dataOf,
  encodeCursor,
  type ErrorIssue,
  type Kernel,
  listQuery,
  noBody,
  okSchema,
  reply,
  route,
  type RouteContext,
  SIGNED_IN,
  type RouteSchema,
} from '../../kernel/api.js';
import { describeTarget, type SourceDialect } from '../../engine/sources/index.js';
import { toConnection } from './repository.js';
import {
  connectionBody,
  connectionIdParams,
  connectionInputBody,
  connectionSchema,
  createdConnectionBody,
  overridesBody,
  overridesInputBody,
  patchConnectionBody,
  testInputBody,
  testResultBody,
  type Connection,
  type Overrides,
} from './schemas.js';
import { connectionsServiceRef, settingsOf, targetOrRefuse } from './service.js';
import type { ConnectionRow } from './tables.js';

const READ = 'connections.read';
const WRITE = 'connections.write';
const DATA_READ = 'data.read';

/** What a reader of some of its rows sees of a connection (SC6): what it is called and whether it takes writes, not where it lives. */
const forDataReader = (c: Connection): Connection => ({
  ...c,
  host: null,
  port: null,
  database: null,
  user: null,
  tls: null,
  serverVersion: null,
  lastTest: null,
});
const connections = (kernel: Kernel) => kernel.plugin(connectionsServiceRef);
type Audit = RouteContext<RouteSchema>['audit'];

/** What the audit trail keeps of a connection: where it points, never the URL or password. */
const auditView = (c: Connection) => ({
  name: c.name,
  dialect: c.dialect,
  readOnly: c.readOnly,
  host: c.host,
  port: c.port,
  database: c.database,
  user: c.user,
  tls: c.tls,
});

function effective(row: ConnectionRow, overrides: Overrides) {
  const s = settingsOf(row, overrides);
  return {
    poolSize: s.poolSize,
    statementTimeoutMs: row.dialect === 'sqlite' ? null : s.statementTimeoutMs,
    connectTimeoutMs: s.connectTimeoutMs,
    defaultSchema: s.defaultSchema,
  };
}

/** Settings a dialect has no use for are refused by name rather than silently ignored. */
function overrideIssues(dialect: SourceDialect, input: z.output<typeof overridesInputBody>): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  const refuse = (field: string, message: string) => issues.push({ path: `body.${field}`, code: 'not_for_dialect', message });
  if (dialect !== 'postgres' && input.defaultSchema != null) refuse('defaultSchema', 'Only PostgreSQL connections have a default schema.');
  if (dialect === 'sqlite' && input.statementTimeoutMs != null) refuse('statementTimeoutMs', 'SQLite has no statement timeout.');
  if (dialect === 'sqlite' && input.poolSize != null) refuse('poolSize', 'A SQLite connection always uses one connection.');
  return issues;
}

const testRecord = (audit: Audit, target: { type: string; id: string } | null, where: object, outcome: { ok: boolean; reason?: string }) =>
  audit({ action: 'connections.test', target, diff: { ...where, ...outcome } });

export const connectionRoutes = [
  route({
    method: 'GET',
    url: '/connections',
    summary: 'Connections, by name',
    permission: READ,
    schema: {
      query: listQuery.extend({ cursor: cursorField(z.strictObject({ n: z.string(), id: z.string().min(1).max(64) })) }),
      response: { 200: dataOf(z.strictObject({ connections: z.array(connectionSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query }) => {
      const page = await connections(kernel).repo.page(query.limit, query.cursor);
      return { data: { connections: page.rows.map(toConnection), nextCursor: page.next ? encodeCursor(page.next) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/connections',
    summary: 'Add a connection to a database (it is tested first)',
    description:
      'The URL is tested before anything is stored: a database that cannot be reached answers 400 CONNECTION_FAILED with params.reason, as POST /connections/test does. ' +
      'The URL is stored encrypted and never returned. A name already used, in any letter case, answers 409 CONFLICT. ' +
      'A SQLite file must already exist; it is never created. ' +
      "Once saved, the connection's schema is read (as POST /connections/{id}/introspect does), so its tables can be read at once: " +
      '`introspection` says what was stored, or why reading failed (the connection is saved anyway; introspect again later).',
    permission: WRITE,
    schema: { body: connectionInputBody, response: { 201: createdConnectionBody } },
    handler: async ({ kernel, body, audit }) => {
      const { connection, introspection } = await connections(kernel).create(body);
      audit({
        action: 'connections.create',
        target: { type: 'connection', id: connection.id },
        diff: {
          ...auditView(connection),
          introspection: introspection && { ok: introspection.ok, snapshotId: introspection.snapshot?.id ?? null, error: introspection.error?.code ?? null },
        },
      });
      return reply(201, { data: { connection, introspection } });
    },
  }),
  route({
    method: 'POST',
    url: '/connections/test',
    summary: 'Test a connection URL without saving it',
    description:
      'Answers within the connect timeout (5 s). On failure: 400 CONNECTION_FAILED with params.reason, one of auth-failed, unreachable, timeout, database-not-found, ' +
      'file-not-found, not-a-database, permission-denied, tls-required, tls-failed, invalid-url, meta-store, unknown. latencyMs is one round trip on the new connection. ' +
      'meta-store: the URL reaches the database this service keeps its own data in (however it is spelled), which is never a connection; a stored connection that does answers the same on every use.',
    permission: WRITE,
    schema: { body: testInputBody, response: { 200: testResultBody } },
    handler: async ({ kernel, body, audit, auditNow }) => {
      const where = { dialect: body.dialect, ...describeTarget(targetOrRefuse(body.dialect, body.url)) };
      try {
        const result = await connections(kernel).testUnsaved(body.dialect, body.url, Boolean(body.readOnly));
        testRecord(audit, null, where, { ok: true });
        return { data: { ok: true as const, ...result } };
      } catch (err) {
        if (err instanceof AppError && err.code === 'CONNECTION_FAILED')
          await testRecord(auditNow, null, where, { ok: false, reason: String(err.params?.reason) });
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    url: '/connections/:id',
    summary: 'One connection',
    description:
      'Needs connections.read. A caller without it whose data.read grants reach this connection (a role given one table) gets its name, ' +
      'dialect and read-only flag, with null for where it lives and its last test (SC6); anyone else 403 naming connections.read.',
    permission: SIGNED_IN,
    schema: { params: connectionIdParams, response: { 200: connectionBody } },
    handler: async ({ kernel, params, principal }) => {
      const { permissions } = principal!;
      if (!permissions.has(READ) && !permissions.reachesConnection(DATA_READ, params.id)) throw new AppError('FORBIDDEN', { params: { permission: READ } });
      const connection = await connections(kernel).get(params.id);
      return { data: { connection: permissions.has(READ) ? connection : forDataReader(connection) } };
    },
  }),
  route({
    method: 'PATCH',
    url: '/connections/:id',
    summary: 'Rename a connection, point it at a new URL, or make it read-only',
    description:
      'A new URL must suit the connection’s dialect and is tested before it is stored (400 CONNECTION_FAILED otherwise); the pool on the old URL is closed. ' +
      'The dialect cannot change: add another connection instead.',
    permission: WRITE,
    schema: { params: connectionIdParams, body: patchConnectionBody, response: { 200: connectionBody } },
    handler: async ({ kernel, params, body, audit }) => {
      const { before, after } = await connections(kernel).update(params.id, body);
      const was = auditView(before);
      const now = auditView(after);
      const changed = (Object.keys(now) as Array<keyof typeof now>).filter((k) => was[k] !== now[k]);
      audit({
        action: 'connections.update',
        target: { type: 'connection', id: after.id },
        diff: {
          before: Object.fromEntries(changed.map((k) => [k, was[k]])),
          after: Object.fromEntries(changed.map((k) => [k, now[k]])),
          ...(body.url !== undefined ? { urlReplaced: true } : {}),
        },
      });
      return { data: { connection: after } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/connections/:id',
    summary: 'Delete a connection and close its pool',
    description:
      'Removes with it, in one transaction, what the instance keeps about that database: schema snapshots and overrides, public endpoints with their key grants and customer sessions, pages bound to its tables, and pending undo tokens. Export and import history stays. The audit entry counts what went.',
    permission: WRITE,
    schema: { params: connectionIdParams, response: { 200: okSchema } },
    handler: async ({ kernel, params, audit }) => {
      const { connection: gone, removed } = await connections(kernel).remove(params.id);
      audit({ action: 'connections.delete', target: { type: 'connection', id: gone.id }, diff: { ...auditView(gone), removed } });
      return { data: { ok: true as const } };
    },
  }),
  route({
    method: 'POST',
    url: '/connections/:id/test',
    summary: 'Test a stored connection now',
    description:
      'Connects afresh (not through the pool), so the answer is about the database now: as POST /connections/test, 200 or 400 CONNECTION_FAILED with params.reason. ' +
      'The outcome is kept as the connection’s lastTest.',
    permission: WRITE,
    schema: { params: connectionIdParams, body: noBody, response: { 200: testResultBody } },
    handler: async ({ kernel, params, audit, auditNow }) => {
      const target = { type: 'connection', id: params.id };
      try {
        const result = await connections(kernel).testStored(params.id);
        testRecord(audit, target, {}, { ok: true });
        return { data: { ok: true as const, ...result } };
      } catch (err) {
        if (err instanceof AppError && err.code === 'CONNECTION_FAILED')
          await testRecord(auditNow, target, {}, { ok: false, reason: String(err.params?.reason) });
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    url: '/connections/:id/overrides',
    summary: 'Connection-level settings: display label and colour, default schema, statement timeout, pool size',
    description: 'overrides holds what was set (null = the default); effective holds the limits the pool runs under.',
    permission: READ,
    schema: { params: connectionIdParams, response: { 200: overridesBody } },
    handler: async ({ kernel, params }) => {
      const { row, overrides } = await connections(kernel).overrides(params.id);
      return { data: { connectionId: row.id, overrides, effective: effective(row, overrides) } };
    },
  }),
  route({
    method: 'PUT',
    url: '/connections/:id/overrides',
    summary: 'Replace the connection-level settings',
    description:
      'Replaces the whole set: a field left out (or null) returns to its default. defaultSchema is for PostgreSQL only; statementTimeoutMs and poolSize not for SQLite ' +
      '(400 naming the field). New limits take effect with the next use: the pool is replaced.',
    permission: WRITE,
    schema: { params: connectionIdParams, body: overridesInputBody, response: { 200: overridesBody } },
    handler: async ({ kernel, params, body, audit }) => {
      const service = connections(kernel);
      const { row: current } = await service.overrides(params.id);
      const issues = overrideIssues(current.dialect, body);
      if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
      const next: Overrides = {
        label: body.label ?? null,
        color: body.color?.toLowerCase() ?? null,
        defaultSchema: body.defaultSchema ?? null,
        statementTimeoutMs: body.statementTimeoutMs ?? null,
        poolSize: body.poolSize ?? null,
      };
      const { row, before, after } = await service.setOverrides(params.id, next);
      audit({ action: 'connections.overrides.set', target: { type: 'connection', id: row.id }, diff: { before, after } });
      return { data: { connectionId: row.id, overrides: after, effective: effective(row, after) } };
    },
  }),
];
