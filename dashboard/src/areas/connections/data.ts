import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useLiveEvents } from '../../live/events';
import { api, ApiError, ok, type Schemas } from '../../api/client';
import type { MessageId } from '../../i18n/t';

export type Connection = Schemas['Connection'];
export type Dialect = Connection['dialect'];
export type FailureReason = NonNullable<Schemas['ConnectionLastTest']['reason']>;
export type EffectiveTable = Schemas['EffectiveSchemaTable'];
export type SchemaOverrides = Schemas['SchemaOverrides'];
export type TableOverride = Schemas['SchemaTableOverride'];
export type ColumnOverride = Schemas['SchemaColumnOverride'];
export type ColumnFormat = NonNullable<ColumnOverride['format']>;

/** Query keys: every key of one connection starts with `['connections', id]`, so one invalidation reaches them all. */
export const CONNECTIONS = ['connections'] as const;
export const connectionKey = (id: string) => ['connections', id] as const;
export const schemaKey = (id: string) => ['connections', id, 'schema'] as const;
export const snapshotsKey = (id: string) => ['connections', id, 'snapshots'] as const;
export const schemaOverridesKey = (id: string) => ['connections', id, 'schema-overrides'] as const;

export const DIALECTS: readonly Dialect[] = ['postgres', 'mysql', 'sqlite'];
export const DIALECT_LABELS: Record<Dialect, MessageId> = {
  postgres: 'connections.dialect.postgres',
  mysql: 'connections.dialect.mysql',
  sqlite: 'connections.dialect.sqlite',
};

/** The API's failure reasons (POST /connections/test), in the person's words. */
export const REASON_LABELS: Record<FailureReason, MessageId> = {
  'auth-failed': 'connections.reason.authFailed',
  unreachable: 'connections.reason.unreachable',
  timeout: 'connections.reason.timeout',
  'database-not-found': 'connections.reason.databaseNotFound',
  'file-not-found': 'connections.reason.fileNotFound',
  'not-a-database': 'connections.reason.notADatabase',
  'permission-denied': 'connections.reason.permissionDenied',
  'tls-required': 'connections.reason.tlsRequired',
  'tls-failed': 'connections.reason.tlsFailed',
  'invalid-url': 'connections.reason.invalidUrl',
  'meta-store': 'connections.reason.metaStore',
  unknown: 'connections.reason.unknown',
};

export function reasonOf(error: unknown): FailureReason | null {
  if (!(error instanceof ApiError)) return null;
  const reason = error.params.reason;
  return typeof reason === 'string' && reason in REASON_LABELS ? (reason as FailureReason) : null;
}

export const FORMATS: readonly ColumnFormat[] = [
  'email',
  'url',
  'phone',
  'currency',
  'percent',
  'markdown',
  'color',
  'image',
  'date',
  'datetime',
  'time',
  'json',
];

/** Paths of the dashboard for one connection. */
export const paths = {
  list: '/connections',
  create: '/connections/new',
  one: (id: string) => `/connections/${encodeURIComponent(id)}`,
  edit: (id: string) => `/connections/${encodeURIComponent(id)}/edit`,
  schema: (id: string) => `/connections/${encodeURIComponent(id)}/schema`,
  snapshots: (id: string) => `/connections/${encodeURIComponent(id)}/snapshots`,
  overrides: (id: string) => `/connections/${encodeURIComponent(id)}/overrides`,
  generate: (id: string) => `/connections/${encodeURIComponent(id)}/generate`,
  remove: (id: string) => `/connections/${encodeURIComponent(id)}/delete`,
  /** The grid of a table (the data area's screen), by the table ref the API names it with. */
  table: (id: string, ref: string) => `/connections/${encodeURIComponent(id)}/tables/${encodeURIComponent(ref)}`,
};

/** `enabled: false` while the connection is being deleted: a refresh then would only find it gone. */
export function useConnection(id: string, enabled = true) {
  return useQuery({
    queryKey: connectionKey(id),
    enabled,
    queryFn: async () => (await ok(api.GET('/connections/{id}', { params: { path: { id } } }))).data.connection,
  });
}

/** The latest snapshot with the overrides applied; `null` before the first introspection (404 SCHEMA_NOT_INTROSPECTED). */
export function useSchema(id: string) {
  return useQuery({
    queryKey: schemaKey(id),
    queryFn: async () => {
      try {
        return (await ok(api.GET('/connections/{id}/schema', { params: { path: { id } } }))).data;
      } catch (err) {
        if (err instanceof ApiError && err.code === 'SCHEMA_NOT_INTROSPECTED') return null;
        throw err;
      }
    },
  });
}

/** Where a connection points, without its secret: host:port/database, or the SQLite file. */
export function whereOf(c: Connection): string {
  if (c.dialect === 'sqlite') return c.database ?? '';
  const host = c.host ?? '';
  const port = c.port !== null ? `:${c.port}` : '';
  const db = c.database ? `/${c.database}` : '';
  return `${host}${port}${db}`;
}

/** Dates in the person's own locale (the browser's). */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const when = (ms: number) => dateFormat.format(new Date(ms));

const LIVE_KINDS = ['schema.changed'] as const;

/**
 * Keeps a connection's screens current when its schema is read again elsewhere (another person,
 * another tab, a background introspection). The shell's LiveSync already refreshes every
 * `['connections', …]` query on `connections.changed`; `schema.changed` names the connection in
 * `data.connectionId`, and only that connection's queries are refreshed.
 */
export function useConnectionsLive(): void {
  const queryClient = useQueryClient();
  useLiveEvents(LIVE_KINDS, (event) => {
    const id = (event.data as { connectionId?: unknown } | null)?.connectionId;
    if (typeof id === 'string') void queryClient.invalidateQueries({ queryKey: connectionKey(id) });
  });
}
