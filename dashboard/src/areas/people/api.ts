import { useInfiniteQuery, useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type ApiPaths, type RequestBody, type Schemas, type User } from '../../api/client';
import type { MutationOptions } from '../../api/hooks';

export type Role = Schemas['Role'];
export type Grant = Schemas['Grant'];
export type CatalogEntry = Schemas['PermissionCatalogEntry'];
export type ApiKey = Schemas['ApiKey'];
export type UserStatus = User['status'];

/**
 * Query keys of the area, all under `['people']` but the system's facts: a write invalidates its
 * key and the lists that show it.
 */
export const peopleKeys = {
  all: ['people'] as const,
  users: ['people', 'users'] as const,
  userList: (status: string, q: string, roleId: string) => ['people', 'users', 'list', status, q, roleId] as const,
  rolesOfUsers: (roleIds: string) => ['people', 'users', 'roles-of', roleIds] as const,
  userNames: ['people', 'users', 'names'] as const,
  user: (id: string) => ['people', 'users', id] as const,
  roles: ['people', 'roles'] as const,
  grants: ['people', 'grants'] as const,
  roleGrants: (roleId: string) => ['people', 'grants', roleId] as const,
  catalog: ['people', 'catalog'] as const,
  apiKeys: ['people', 'api-keys'] as const,
  apiKeyNames: ['people', 'api-keys', 'names'] as const,
  audit: ['people', 'audit'] as const,
  auditList: (query: AuditQuery) => ['people', 'audit', query] as const,
  auditEntry: (id: string) => ['people', 'audit', 'entry', id] as const,
  connections: ['people', 'connections'] as const,
  schema: (conn: string) => ['people', 'schema', conn] as const,
  systemInfo: ['system-info'] as const,
};

/** Every page of a keyset list (roles, the catalog: a few dozen at most). */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const p = await page(cursor);
    out.push(...p.items);
    if (!p.nextCursor) break;
    cursor = p.nextCursor;
  }
  return out;
}

export function useRoles(enabled = true) {
  return useQuery({
    queryKey: peopleKeys.roles,
    enabled,
    queryFn: () =>
      allPages(async (cursor) => {
        const d = (await ok(api.GET('/roles', { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        return { items: d.roles, nextCursor: d.nextCursor };
      }),
  });
}

export function useCatalog() {
  return useQuery({
    queryKey: peopleKeys.catalog,
    staleTime: Infinity,
    queryFn: () =>
      allPages(async (cursor) => {
        const d = (await ok(api.GET('/permissions/catalog', { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        return { items: d.permissions, nextCursor: d.nextCursor };
      }),
  });
}

/** The connections a scope may name (only when the signed-in person may list them). */
export function useScopeConnections(enabled = true) {
  return useQuery({
    queryKey: peopleKeys.connections,
    enabled,
    retry: false,
    queryFn: () =>
      allPages(async (cursor) => {
        const d = (await ok(api.GET('/connections', { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        return { items: d.connections, nextCursor: d.nextCursor };
      }),
  });
}

/** The tables of a connection as its schema describes them (to read an audit entry's data changes), when the person may see it. */
export function useConnectionTables(conn: string | null) {
  return useQuery({
    queryKey: peopleKeys.schema(conn ?? ''),
    enabled: conn !== null,
    retry: false,
    staleTime: 60_000,
    queryFn: async () => (await ok(api.GET('/connections/{id}/schema', { params: { path: { id: conn! } } }))).data.model.tables,
  });
}

/** Users, 50 a page, filtered by status, text and role (`''`: any). */
export function useUserList(status: UserStatus | '', q: string, roleId: string) {
  return useInfiniteQuery({
    queryKey: peopleKeys.userList(status, q, roleId),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await ok(
          api.GET('/users', {
            params: {
              query: {
                limit: 50,
                ...(status ? { status } : {}),
                ...(q ? { q } : {}),
                ...(roleId ? { roleId } : {}),
                ...(pageParam ? { cursor: pageParam } : {}),
              },
            },
          }),
        )
      ).data,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** Which roles each user holds: one list per role (a few), not one call per user. */
export function useRolesByUser(roles: Role[] | undefined) {
  return useQuery({
    queryKey: peopleKeys.rolesOfUsers(roles?.map((r) => r.id).join(',') ?? ''),
    enabled: roles !== undefined,
    queryFn: async () => {
      const map = new Map<string, string[]>();
      for (const role of roles ?? []) {
        let cursor: string | undefined;
        for (let i = 0; i < 100; i++) {
          const d = (await ok(api.GET('/users', { params: { query: { roleId: role.id, limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
          for (const u of d.users) map.set(u.id, [...(map.get(u.id) ?? []), role.id]);
          if (!d.nextCursor) break;
          cursor = d.nextCursor;
        }
      }
      return map;
    },
  });
}

/** People by id, to name actors (only when the signed-in person may list users). */
export function usePeopleNames() {
  return useQuery({
    queryKey: peopleKeys.userNames,
    retry: false,
    queryFn: async () => {
      const d = (await ok(api.GET('/users', { params: { query: { limit: 500 } } }))).data;
      return new Map(d.users.map((u) => [u.id, u.name]));
    },
  });
}

/** The system's facts (whether mail goes out). */
export function useSystemInfo() {
  return useQuery({ queryKey: peopleKeys.systemInfo, queryFn: async () => ok(api.GET('/system/info')) });
}

/** POST /users: the server mails the set-password link; the lists are asked again. */
export function useInviteUser() {
  const queryClient = useQueryClient();
  return useMutation({
    // The answer carries the set-password link only while e-mail is not set up (DB47).
    mutationFn: async (body: RequestBody<'/users', 'post'>) => (await ok(api.POST('/users', { body }))).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: peopleKeys.users }),
  });
}

export function useUser(id: string) {
  return useQuery({ queryKey: peopleKeys.user(id), queryFn: async () => (await ok(api.GET('/users/{id}', { params: { path: { id } } }))).data });
}

/** PATCH /users/{id} with a new name and e-mail. */
export function useEditUser(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; email: string }) => ok(api.PATCH('/users/{id}', { params: { path: { id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: peopleKeys.users }),
  });
}

export type UserAction = 'resend' | 'suspend' | 'reactivate' | 'roles' | 'delete';

/** What can be done to a user; a deleted user's query is dropped, and the lists are asked again before `onSuccess`. */
/** What an action did: which one, and a resent invitation's link when e-mail is not set up (DB47). */
export interface UserActionDone {
  action: UserAction;
  inviteLink: string | null;
}

export function useUserAction(id: string, options?: MutationOptions<UserActionDone, { action: UserAction; roleIds?: string[] }>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: async ({ action, roleIds }: { action: UserAction; roleIds?: string[] }) => {
      const path = { params: { path: { id } } };
      switch (action) {
        case 'resend':
          return { action, inviteLink: (await ok(api.POST('/users/{id}/invite/resend', path))).data.inviteLink ?? null };
        case 'suspend':
        case 'reactivate':
          await ok(api.PATCH('/users/{id}', { ...path, body: { status: action === 'suspend' ? 'suspended' : 'active' } }));
          break;
        case 'roles':
          await ok(api.PUT('/users/{id}/roles', { ...path, body: { roleIds: roleIds ?? [] } }));
          break;
        case 'delete':
          await ok(api.DELETE('/users/{id}', path));
          break;
      }
      return { action, inviteLink: null };
    },
    onSuccess: async (done, ...rest) => {
      if (done.action === 'delete') queryClient.removeQueries({ queryKey: peopleKeys.user(id) });
      await queryClient.invalidateQueries({ queryKey: peopleKeys.users });
      await options?.onSuccess?.(done, ...rest);
    },
  });
}

const roleGrants = async (id: string) => (await ok(api.GET('/roles/{id}/permissions', { params: { path: { id } } }))).data;

export function useRoleGrants(id: string) {
  return useQuery({ queryKey: peopleKeys.roleGrants(id), queryFn: () => roleGrants(id) });
}

/** Every role's grants, one query per role. */
export function useGrants(roles: Role[] | undefined) {
  return useQueries({ queries: (roles ?? []).map((r) => ({ queryKey: peopleKeys.roleGrants(r.id), queryFn: () => roleGrants(r.id) })) });
}

/** PUT /roles/{id}/permissions: all of a role's grants; its grants are asked again before `onSuccess`. */
type GrantsBody = RequestBody<'/roles/{id}/permissions', 'put'>['grants'];

export function useSaveGrants(options?: MutationOptions<unknown, { roleId: string; grants: GrantsBody }>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: async ({ roleId, grants }: { roleId: string; grants: GrantsBody }) =>
      ok(api.PUT('/roles/{id}/permissions', { params: { path: { id: roleId } }, body: { grants } })),
    onSuccess: async (data, vars, ...rest) => {
      await queryClient.invalidateQueries({ queryKey: peopleKeys.roleGrants(vars.roleId) });
      await options?.onSuccess?.(data, vars, ...rest);
    },
  });
}

/** POST /roles; the roles are asked again. */
export function useCreateRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: RequestBody<'/roles', 'post'>) => (await ok(api.POST('/roles', { body }))).data.role,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: peopleKeys.roles }),
  });
}

/** PATCH /roles/{id}: name and description; the roles are asked again. */
export function useEditRole(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: RequestBody<'/roles/{id}', 'patch'>) => ok(api.PATCH('/roles/{id}', { params: { path: { id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: peopleKeys.roles }),
  });
}

/** DELETE /roles/{id}; the roles are asked again before `onSuccess`. */
export function useDeleteRole(id: string, options?: MutationOptions<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: async () => ok(api.DELETE('/roles/{id}', { params: { path: { id } } })),
    onSuccess: async (...args) => {
      await queryClient.invalidateQueries({ queryKey: peopleKeys.roles });
      await options?.onSuccess?.(...args);
    },
  });
}

export function useApiKeys() {
  return useInfiniteQuery({
    queryKey: peopleKeys.apiKeys,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => (await ok(api.GET('/api-keys', { params: { query: { limit: 50, ...(pageParam ? { cursor: pageParam } : {}) } } }))).data,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** Live API keys by id, to name a key acting or acted on (when the person may list keys; revoked keys keep their id). */
export function useKeyNames() {
  return useQuery({
    queryKey: peopleKeys.apiKeyNames,
    retry: false,
    queryFn: async () => {
      const d = (await ok(api.GET('/api-keys', { params: { query: { limit: 500 } } }))).data;
      return new Map(d.apiKeys.map((k) => [k.id, k.name]));
    },
  });
}

/** POST /api-keys: the key and its secret, shown once; the keys are asked again. */
export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: RequestBody<'/api-keys', 'post'>) => (await ok(api.POST('/api-keys', { body }))).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: peopleKeys.apiKeys }),
  });
}

/** DELETE /api-keys/{id}; whatever the outcome, the keys are asked again after the screen's `onSettled`. */
export function useRevokeApiKey(options?: MutationOptions<ApiKey, ApiKey>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: async (key: ApiKey) => {
      await ok(api.DELETE('/api-keys/{id}', { params: { path: { id: key.id } } }));
      return key;
    },
    onSettled: async (...args) => {
      await options?.onSettled?.(...args);
      await queryClient.invalidateQueries({ queryKey: peopleKeys.apiKeys });
    },
  });
}

/** The audit list's filters (its paging is the hook's). */
export type AuditQuery = Omit<NonNullable<ApiPaths['/audit']['get']['parameters']['query']>, 'limit' | 'cursor'>;

/** The audit trail, 50 a page, filtered. */
export function useAuditList(query: AuditQuery) {
  return useInfiniteQuery({
    queryKey: peopleKeys.auditList(query),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (await ok(api.GET('/audit', { params: { query: { limit: 50, ...query, ...(pageParam ? { cursor: pageParam } : {}) } } }))).data,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useAuditEntry(id: string) {
  return useQuery({
    queryKey: peopleKeys.auditEntry(id),
    queryFn: async () => (await ok(api.GET('/audit/{id}', { params: { path: { id } } }))).data.entry,
  });
}
