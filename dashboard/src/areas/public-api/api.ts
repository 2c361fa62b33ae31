import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type ApiPaths, type Schemas } from '../../api/client';
import type { After, LiveKeys } from '../area';

export type Scope = Schemas['PublicScope'];
export type PublicKey = Schemas['PublicKeyListItem'];
export type Template = Schemas['EmailTemplate'];
type JsonBody<T> = T extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
export type NewScope = JsonBody<ApiPaths['/public-scopes']['post']>;
export type NewKey = JsonBody<ApiPaths['/public-keys']['post']>;
export type TemplateBody = JsonBody<ApiPaths['/email-templates/{key}/{locale}']['put']>;

/**
 * Query keys of the area. Everything the area owns starts with `['public-api']`. Two lists of
 * names and a table's columns are read under another area's prefix on purpose: that area's own
 * invalidations (a connection renamed, an add-on installed, overrides saved) then reach them too.
 */
export const publicApiKeys = {
  all: ['public-api'] as const,
  switch: ['public-api', 'switch'] as const,
  scopes: ['public-api', 'scopes'] as const,
  keys: ['public-api', 'keys'] as const,
  templates: ['public-api', 'email-templates'] as const,
  template: (key: string, locale: string) => ['public-api', 'email-templates', key, locale] as const,
  connectionNames: ['connections', 'names'] as const,
  appNames: ['add-ons', 'names'] as const,
  /** The connection's effective model as the endpoint editor reads it (not the connections area's whole answer, whose key is one shorter). */
  tableModel: (connectionId: string | undefined) => ['connections', connectionId, 'schema', 'model'] as const,
};

const connectionIdOf = (data: unknown) => (data as { connectionId?: unknown } | null)?.connectionId;

/**
 * What refreshes the area's screens (Area.live). `public.changed` covers the switch, endpoints
 * and keys (another tab, another client, an app installed); a revoked or rotated key comes as
 * `public.key-revoked` only. The generated endpoints and their problems follow the connections
 * and their schema, so those events refresh the endpoint list (and the editor's columns).
 */
export const publicApiLive: Readonly<Record<string, LiveKeys>> = {
  'public.changed': [publicApiKeys.all],
  'public.key-revoked': [publicApiKeys.keys],
  'connections.changed': [publicApiKeys.scopes],
  'schema.changed': (data) => {
    const id = connectionIdOf(data);
    return typeof id === 'string' ? [publicApiKeys.scopes, publicApiKeys.tableModel(id)] : [publicApiKeys.scopes];
  },
};

/** Every page of a cursor-paged list. */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | null }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    all.push(...next.items);
    cursor = next.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

const pageQuery = (cursor: string | undefined) => ({ params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } });

/** The public API switch and the origins (GET /public-api). */
export function usePublicApiState() {
  return useQuery({ queryKey: publicApiKeys.switch, queryFn: async () => (await ok(api.GET('/public-api'))).data });
}

/** PUT /public-api: the answer is the new state. */
export function useSetPublicApi() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (enabled: boolean) => (await ok(api.PUT('/public-api', { body: { enabled } }))).data,
    onSuccess: (data) => queryClient.setQueryData(publicApiKeys.switch, data),
  });
}

/** Every endpoint (all pages of GET /public-scopes): the generated one of each table and the stored ones. */
export function useScopes() {
  return useQuery({
    queryKey: publicApiKeys.scopes,
    queryFn: () =>
      allPages(async (cursor) => {
        const page = (await ok(api.GET('/public-scopes', pageQuery(cursor)))).data;
        return { items: page.scopes as Scope[], nextCursor: page.nextCursor };
      }),
  });
}

/** Connection names by id, to say where an endpoint's table is. */
export function useConnectionNames() {
  return useQuery({
    queryKey: publicApiKeys.connectionNames,
    queryFn: async () => {
      const connections = await allPages(async (cursor) => {
        const page = (await ok(api.GET('/connections', pageQuery(cursor)))).data;
        return { items: page.connections, nextCursor: page.nextCursor };
      });
      return new Map(connections.map((c) => [c.id, c.name]));
    },
  });
}

/** Installed apps' names by key, to name the app an endpoint or key belongs to (its key when unknown). */
export function useAppNames() {
  return useQuery({
    queryKey: publicApiKeys.appNames,
    queryFn: async () => new Map((await ok(api.GET('/add-ons'))).data.addons.map((a) => [a.key, a.name])),
  });
}

/** The connection's effective model (its tables and columns), once the endpoint is known. */
export function useTableModel(connectionId: string | undefined) {
  return useQuery({
    queryKey: publicApiKeys.tableModel(connectionId),
    enabled: connectionId !== undefined,
    queryFn: async () => (await ok(api.GET('/connections/{id}/schema', { params: { path: { id: connectionId! } } }))).data.model,
  });
}

const postScope = async (body: NewScope) => (await ok(api.POST('/public-scopes', { body }))).data.scope;
const patchScope = async (scope: Scope, body: Record<string, unknown>) =>
  (await ok(api.PATCH('/public-scopes/{id}', { params: { path: { id: scope.id ?? scope.ref } }, body: body as never }))).data.scope;
const deleteScope = async (scope: Scope) => (await ok(api.DELETE('/public-scopes/{id}', { params: { path: { id: scope.id ?? scope.ref } } }))).data.scope;
const postKey = async (body: NewKey) => (await ok(api.POST('/public-keys', { body }))).data;
/** An endpoint as a change answers it. */
export type SavedScope = Awaited<ReturnType<typeof postScope>>;

/** POST /public-scopes; the list is read again before the caller goes on (it opens the new endpoint). */
export function useCreateScope(after: After<SavedScope, NewScope> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: postScope,
    onSuccess: async (scope, body) => {
      await queryClient.invalidateQueries({ queryKey: publicApiKeys.scopes });
      await after.onSuccess?.(scope, body);
    },
    onError: after.onError,
  });
}

/** PATCH one endpoint with the edits (by id, or by ref while it is the table's unstored generated one); the list is read again. */
export function useSaveScope(scope: Scope, after: After<SavedScope, Record<string, unknown>> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    onMutate: after.onMutate,
    mutationFn: (body: Record<string, unknown>) => patchScope(scope, body),
    onSuccess: async (saved, body) => {
      await queryClient.invalidateQueries({ queryKey: publicApiKeys.scopes });
      await after.onSuccess?.(saved, body);
    },
    onError: after.onError,
  });
}

/** DELETE: a generated endpoint returns to its generated form (the answer), an extra one is removed (null). */
export function useRemoveScope(scope: Scope, after: After<Awaited<ReturnType<typeof deleteScope>>, void> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => deleteScope(scope),
    onSuccess: async (left) => {
      await queryClient.invalidateQueries({ queryKey: publicApiKeys.scopes });
      await after.onSuccess?.(left);
    },
    onError: after.onError,
  });
}

/** Every key not revoked (all pages of GET /public-keys). */
export function useKeys() {
  return useQuery({
    queryKey: publicApiKeys.keys,
    queryFn: () =>
      allPages(async (cursor) => {
        const page = (await ok(api.GET('/public-keys', pageQuery(cursor)))).data;
        return { items: page.keys, nextCursor: page.nextCursor };
      }),
  });
}

export type KeyAction = 'reveal' | 'rotate' | 'revoke';

/** Reveal, rotate or revoke a key: the answer carries the secret handed over (null for a revoke). The list is read again either way. */
export function useKeyAction(after: After<{ key: PublicKey; action: KeyAction; secret: string | null }, { key: PublicKey; action: KeyAction }> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ key, action }: { key: PublicKey; action: KeyAction }) => {
      const path = { params: { path: { id: key.id } } };
      if (action === 'reveal') return { key, action, secret: (await ok(api.GET('/public-keys/{id}/reveal', path))).data.secret };
      if (action === 'rotate') return { key, action, secret: (await ok(api.POST('/public-keys/{id}/rotate', path))).data.secret };
      await ok(api.DELETE('/public-keys/{id}', path));
      return { key, action, secret: null };
    },
    // What happened is said at once; the list follows.
    onSuccess: after.onSuccess,
    onError: after.onError,
    onSettled: () => queryClient.invalidateQueries({ queryKey: publicApiKeys.keys }),
  });
}

/** POST /public-keys: the key and its secret (shown once); the keys and the endpoints (their grants) are read again. */
export function useCreateKey(after: After<Awaited<ReturnType<typeof postKey>>, NewKey> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: postKey,
    onSuccess: async (created, body) => {
      // The secret is shown at once (it is shown only now); the lists follow.
      await after.onSuccess?.(created, body);
      await Promise.all([queryClient.invalidateQueries({ queryKey: publicApiKeys.keys }), queryClient.invalidateQueries({ queryKey: publicApiKeys.scopes })]);
    },
    onError: after.onError,
  });
}

/** Every e-mail template by key and locale. */
export function useTemplates() {
  return useQuery({ queryKey: publicApiKeys.templates, queryFn: async () => (await ok(api.GET('/email-templates'))).data.templates });
}

/** One template in one locale (the stored one, or what is sent without one). */
export function useTemplate(key: string, locale: string) {
  return useQuery({
    queryKey: publicApiKeys.template(key, locale),
    queryFn: async () => (await ok(api.GET('/email-templates/{key}/{locale}', { params: { path: { key, locale } } }))).data.template,
  });
}

/** PUT one template: the answer replaces the cached one, and the list (its "edited" marks) is read again. */
export function useSaveTemplate(template: Template) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: TemplateBody) =>
      (await ok(api.PUT('/email-templates/{key}/{locale}', { params: { path: { key: template.key, locale: template.locale } }, body }))).data.template,
    onSuccess: async (saved) => {
      queryClient.setQueryData(publicApiKeys.template(saved.key, saved.locale), saved);
      await queryClient.invalidateQueries({ queryKey: publicApiKeys.templates, exact: true });
    },
  });
}

/** POST a test send of the stored template to one address. */
export function useTestSend(template: Template) {
  return useMutation({
    mutationFn: async (to: string) =>
      (await ok(api.POST('/email-templates/{key}/test-send', { params: { path: { key: template.key } }, body: { to, locale: template.locale } }))).data,
  });
}
