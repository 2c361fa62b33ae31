import { type InfiniteData, type QueryClient, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, ok, type RequestBody, type Schemas } from '../../api/client';
import type { Answer, MutationOptions } from '../../api/hooks';
import type { MessageId } from '../../i18n/t';
import type { LiveKeys } from '../area';

export type Connection = Schemas['Connection'];
export type Dialect = Connection['dialect'];
export type FailureReason = NonNullable<Schemas['ConnectionLastTest']['reason']>;
export type EffectiveTable = Schemas['EffectiveSchemaTable'];
export type SchemaOverrides = Schemas['SchemaOverrides'];
export type TableOverride = Schemas['SchemaTableOverride'];
export type ColumnOverride = Schemas['SchemaColumnOverride'];
export type ColumnFormat = NonNullable<ColumnOverride['format']>;

/**
 * Query keys: every key of one connection starts with `['connections', id]`, so one invalidation
 * reaches them all; the shell's live channel refreshes everything under `['connections']`.
 */
export const connectionKeys = {
  all: ['connections'] as const,
  list: () => ['connections', 'list'] as const,
  nav: () => ['connections', 'nav'] as const,
  one: (id: string) => ['connections', id] as const,
  settings: (id: string) => ['connections', id, 'settings'] as const,
  schema: (id: string) => ['connections', id, 'schema'] as const,
  snapshots: (id: string) => ['connections', id, 'snapshots'] as const,
  diff: (id: string, from: string | null, to: string | null) => ['connections', id, 'snapshots', 'diff', from, to] as const,
  whatGoes: (id: string) => ['connections', id, 'what-goes'] as const,
};

export const DIALECTS: readonly Dialect[] = ['postgres', 'mysql', 'sqlite'];
/** A connection's TLS mode (PostgreSQL's sslmode values, which MariaDB's URL takes too) in words people read. */
export const TLS_LABELS: Record<NonNullable<Connection['tls']>, MessageId> = {
  disable: 'connections.form.tlsDisable',
  require: 'connections.form.tlsRequire',
  'verify-full': 'connections.form.tlsVerifyFull',
};

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
    queryKey: connectionKeys.one(id),
    enabled,
    queryFn: async () => (await ok(api.GET('/connections/{id}', { params: { path: { id } } }))).data.connection,
  });
}

/** The latest snapshot with the overrides applied; `null` before the first introspection (404 SCHEMA_NOT_INTROSPECTED). */
export function useSchema(id: string) {
  return useQuery({
    queryKey: connectionKeys.schema(id),
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

/**
 * What refreshes the area's screens (Area.live): any change of a connection (`connections.changed`)
 * every `['connections', …]` query; a schema read again elsewhere (another person, another tab, a
 * background introspection) only the queries of the connection its `data.connectionId` names.
 */
export const connectionsLive: Readonly<Record<string, LiveKeys>> = {
  'connections.changed': [connectionKeys.all],
  'schema.changed': (data) => {
    const id = (data as { connectionId?: unknown } | null)?.connectionId;
    return typeof id === 'string' ? [connectionKeys.one(id)] : [];
  },
};

/** Every connection, a page of 100 at a time (the list screen). */
export function useConnectionList() {
  return useInfiniteQuery({
    queryKey: connectionKeys.list(),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (await ok(api.GET('/connections', { params: { query: { limit: 100, ...(pageParam ? { cursor: pageParam } : {}) } } }))).data,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** The first `limit` connections, for the navigation; asked only while `enabled`. */
export function useNavConnections(limit: number, enabled: boolean) {
  return useQuery({
    queryKey: connectionKeys.nav(),
    queryFn: async () => (await ok(api.GET('/connections', { params: { query: { limit } } }))).data,
    enabled,
  });
}

/** The connection-level settings and what the pool runs under now (GET /connections/{id}/overrides). */
export function useConnectionSettings(id: string) {
  return useQuery({
    queryKey: connectionKeys.settings(id),
    queryFn: async () => (await ok(api.GET('/connections/{id}/overrides', { params: { path: { id } } }))).data,
  });
}

export type ConnectionSettingsBody = RequestBody<'/connections/{id}/overrides', 'put'>;
const saveSettings = async (id: string, body: ConnectionSettingsBody) =>
  (await ok(api.PUT('/connections/{id}/overrides', { params: { path: { id } }, body }))).data;

/** PUT /connections/{id}/overrides; the answer replaces the cached settings. */
export function useSaveConnectionSettings(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ConnectionSettingsBody) => saveSettings(id, body),
    onSuccess: (data) => queryClient.setQueryData(connectionKeys.settings(id), data),
  });
}

export function useSnapshots(id: string) {
  return useInfiniteQuery({
    queryKey: connectionKeys.snapshots(id),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await ok(
          api.GET('/connections/{id}/schema/snapshots', { params: { path: { id }, query: { limit: 100, ...(pageParam ? { cursor: pageParam } : {}) } } }),
        )
      ).data,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** The difference between two snapshots; without them, the last two. */
export function useSchemaDiff(id: string, from?: string, to?: string) {
  return useQuery({
    queryKey: connectionKeys.diff(id, from ?? null, to ?? null),
    queryFn: async () =>
      (await ok(api.GET('/connections/{id}/schema/diff', { params: { path: { id }, query: { ...(from ? { from } : {}), ...(to ? { to } : {}) } } }))).data,
  });
}

/** POST /connections/test: whether a target answers, before it is saved. */
export function useTestTarget() {
  return useMutation({
    mutationFn: async (body: RequestBody<'/connections/test', 'post'>) => (await ok(api.POST('/connections/test', { body }))).data,
  });
}

export type SaveConnection = { create: RequestBody<'/connections', 'post'> } | { id: string; patch: RequestBody<'/connections/{id}', 'patch'> };
const saveConnection = async (save: SaveConnection): Promise<Connection> =>
  'create' in save
    ? (await ok(api.POST('/connections', { body: save.create }))).data.connection
    : (await ok(api.PATCH('/connections/{id}', { params: { path: { id: save.id } }, body: save.patch }))).data.connection;

type ConnectionPage = { connections: Connection[]; nextCursor: string | null };

/**
 * A changed connection replaces its old self in the cached lists at once: a list screen mounted
 * after a rename paints what it has while it asks again, and that must not be the old name.
 */
function replaceInLists(queryClient: QueryClient, saved: Connection): void {
  const swap = (page: ConnectionPage): ConnectionPage => ({ ...page, connections: page.connections.map((c) => (c.id === saved.id ? saved : c)) });
  queryClient.setQueryData<InfiniteData<ConnectionPage>>(connectionKeys.list(), (old) => old && { ...old, pages: old.pages.map(swap) });
  queryClient.setQueryData<ConnectionPage>(connectionKeys.nav(), (old) => old && swap(old));
}

/** Creates a connection or changes one; the saved one is cached and the lists are asked again before `onSuccess`. */
export function useSaveConnection(options?: MutationOptions<Connection, SaveConnection>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: saveConnection,
    onSuccess: async (saved, ...rest) => {
      queryClient.setQueryData(connectionKeys.one(saved.id), saved);
      replaceInLists(queryClient, saved);
      await queryClient.invalidateQueries({ queryKey: connectionKeys.all });
      await options?.onSuccess?.(saved, ...rest);
    },
  });
}

/** POST /connections/{id}/test: the database now; the outcome becomes the connection's health. */
export function useTestConnection(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await ok(api.POST('/connections/{id}/test', { params: { path: { id } } }))).data,
    onSettled: () => queryClient.invalidateQueries({ queryKey: connectionKeys.one(id), exact: true }),
  });
}

/** POST /connections/{id}/introspect: reads the schema again; a change stores a snapshot. */
export function useIntrospect(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => ok(api.POST('/connections/{id}/introspect', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: connectionKeys.one(id) }),
  });
}

/** PUT /connections/{id}/schema/overrides: every table's display overrides at once. */
export function useSaveSchemaOverrides(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (tables: TableOverride[]) =>
      (await ok(api.PUT('/connections/{id}/schema/overrides', { params: { path: { id } }, body: { tables } }))).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: connectionKeys.one(id) }),
  });
}

/** POST /connections/{id}/generate: a list and a detail page per table, or, as a dry run, what it would do. */
export function useGenerate(id: string) {
  return useMutation({
    mutationFn: async (body: { tables: string[]; dryRun: boolean }) =>
      (await ok(api.POST('/connections/{id}/generate', { params: { path: { id } }, body }))).data,
  });
}

const deleteConnection = async (c: Connection) => {
  await ok(api.DELETE('/connections/{id}', { params: { path: { id: c.id } } }));
  // The server's own counts, as its audit entry recorded them (no audit right: none shown).
  let removed: Record<string, number> | null = null;
  try {
    const entries = (await ok(api.GET('/audit', { params: { query: { action: 'connections.delete', targetType: 'connection', targetId: c.id, limit: 1 } } })))
      .data.entries;
    const diff = entries[0]?.diff as { removed?: Record<string, number> } | null | undefined;
    removed = diff?.removed ?? null;
  } catch {
    removed = null;
  }
  return { name: c.name, removed };
};

/** DELETE /connections/{id}, then what the server removed with it; the connection's queries are dropped. */
export function useDeleteConnection(id: string, options?: MutationOptions<Answer<typeof deleteConnection>, Connection>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: deleteConnection,
    onSuccess: (...args) => {
      queryClient.removeQueries({ queryKey: connectionKeys.one(id) });
      void queryClient.invalidateQueries({ queryKey: connectionKeys.all });
      return options?.onSuccess?.(...args);
    },
  });
}

/**
 * What a deletion takes with it, counted from what the dashboard can list (the API offers no
 * dry run of the DELETE): snapshots, overridden tables, generated pages (the generator's dry run
 * names those already there), stored public endpoints; null where it may not read them.
 */
export function useWhatGoes(id: string, enabled: boolean) {
  return useQuery({
    queryKey: connectionKeys.whatGoes(id),
    enabled,
    staleTime: 0,
    queryFn: async () => {
      const soft = async <T>(read: () => Promise<T>): Promise<T | null> => {
        try {
          return await read();
        } catch (err) {
          if (err instanceof ApiError && err.status >= 400 && err.status < 500) return null;
          throw err;
        }
      };
      const snapshots = await soft(async () => {
        const d = (await ok(api.GET('/connections/{id}/schema/snapshots', { params: { path: { id }, query: { limit: 500 } } }))).data;
        return { count: d.snapshots.length, more: d.nextCursor !== null };
      });
      const overrides = await soft(
        async () => (await ok(api.GET('/connections/{id}/schema/overrides', { params: { path: { id } } }))).data.overrides.tables.length,
      );
      const pages = await soft(async () => {
        const schema = (await ok(api.GET('/connections/{id}/schema', { params: { path: { id } } }))).data;
        const tables = schema.model.tables.map((x) => x.ref);
        if (tables.length === 0) return 0;
        return (await ok(api.POST('/connections/{id}/generate', { params: { path: { id } }, body: { tables, dryRun: true } }))).data.existing.length;
      });
      const endpoints = await soft(async () => {
        const d = (await ok(api.GET('/public-scopes', { params: { query: { connectionId: id, limit: 500 } } }))).data;
        return d.scopes.filter((s) => !s.virtual).length;
      });
      return { snapshots, overrides, pages, endpoints };
    },
  });
}
