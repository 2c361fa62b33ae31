import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { api, ApiError, ok, type RequestBody, type Schemas, type User } from '../../api/client';
import type { MutationOptions } from '../../api/hooks';
import { bootstrapKey, useBootstrapPart, useBootstrapSession } from '../../api/bootstrap';
import { accountKeys, prefsSettled, SAVE_PREFS } from './keys';
export { accountKeys, prefsSeedable } from './keys';

/*
 * The signed-in person's own data: who they are, setup and sign-in, two-step verification,
 * sessions, profile, preferences, notifications; the screens of the area beside it.
 */

export type Prefs = Schemas['Prefs'];
export type ResolvedPrefs = Schemas['ResolvedPrefs'];
export type PrefsData = { prefs: Prefs; resolved: ResolvedPrefs };
export type NotificationPref = Schemas['NotificationPref'];
export type Session = Schemas['Session'];

// The screens' signed-out handling is the client's (a 401 sends the person to sign-in).
export { setSignedOutHandler } from '../../api/client';

/**
 * The signed-in user: GET /bootstrap seeds it (and again at every navigation), so it is asked of
 * GET /me only when the bootstrap had no session or after a change; a 401 sends the person to sign-in (see api/client).
 */
export function useMe() {
  return useQuery({ queryKey: accountKeys.me, queryFn: async () => (await ok(api.GET('/me'))).data.user, staleTime: Infinity });
}

/**
 * What the signed-in caller holds (GET /bootstrap's `session.permissions`, decisions BO1), or
 * undefined until known: screens hide what the caller cannot use; the server still decides.
 */
export function usePermissions(): ReadonlySet<string> | undefined {
  const permissions = useBootstrapSession()?.permissions;
  return useMemo(() => (permissions ? new Set(permissions) : undefined), [permissions]);
}

/**
 * Whether the caller holds a permission (with any scope): screens hide what they would only
 * refuse. The server still decides on every request.
 */
export function useCan(permission: string): boolean {
  return usePermissions()?.has(permission) ?? false;
}

/**
 * Asks again who is signed in (after a navigation, a change of two-step verification): the
 * bootstrap, which brings the user, permissions, navigation, preferences, unread count and
 * onboarding in one request, and seeds them (a session ended elsewhere answers 401: sign-in).
 */
export function useRefreshMe() {
  const queryClient = useQueryClient();
  return useCallback(() => queryClient.invalidateQueries({ queryKey: bootstrapKey }), [queryClient]);
}

/** Whether the instance still waits for its first administrator: GET /bootstrap's `setup`. */
export function useSetupState() {
  return useBootstrapPart((b) => b.setup);
}

/**
 * After a sign-in: forget what the previous person saw, know who is signed in now, and ask for
 * the bootstrap again (the app waits for it: the session, permissions and navigation are the new person's).
 */
function signedIn(queryClient: QueryClient, user: User): void {
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== bootstrapKey[0] });
  queryClient.setQueryData(accountKeys.me, user);
  void queryClient.resetQueries({ queryKey: bootstrapKey });
}

export function useSignedIn() {
  const queryClient = useQueryClient();
  return useCallback((user: User) => signedIn(queryClient, user), [queryClient]);
}

/** POST /auth/login: the user, or a challenge for the second factor (202). */
export function useSignIn() {
  return useMutation({ mutationFn: async (body: RequestBody<'/auth/login', 'post'>) => (await ok(api.POST('/auth/login', { body }))).data });
}

/** POST /auth/2fa/verify: the second factor of a sign-in. */
export function useVerifySignIn() {
  return useMutation({ mutationFn: async (body: RequestBody<'/auth/2fa/verify', 'post'>) => (await ok(api.POST('/auth/2fa/verify', { body }))).data });
}

/** Signs out (a session that already ended is signed out all the same) and forgets every answer. */
export function useSignOut() {
  const queryClient = useQueryClient();
  return async () => {
    try {
      await api.POST('/auth/logout');
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
    }
    queryClient.clear();
  };
}

/** POST /setup/super-admin: the first account, then signed in. */
export function useCreateSuperAdmin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: RequestBody<'/setup/super-admin', 'post'>) => (await ok(api.POST('/setup/super-admin', { body }))).data,
    onSuccess: (data) => signedIn(queryClient, data.user),
  });
}

export function useForgotPassword() {
  return useMutation({ mutationFn: async (email: string) => ok(api.POST('/auth/password/forgot', { body: { email } })) });
}

/** POST /auth/password/reset: a reset link's or an invitation's token, and the new password. */
export function useResetPassword() {
  return useMutation({ mutationFn: async (body: RequestBody<'/auth/password/reset', 'post'>) => ok(api.POST('/auth/password/reset', { body })) });
}

export function useEnrolTwoFactor() {
  return useMutation({ mutationFn: async () => (await ok(api.POST('/auth/2fa/enroll'))).data });
}

/** POST /auth/2fa/activate: a code from the app; the recovery codes. */
export function useActivateTwoFactor() {
  return useMutation({ mutationFn: async (code: string) => (await ok(api.POST('/auth/2fa/activate', { body: { code } }))).data });
}

/** POST /auth/2fa/disable; who is signed in is asked again. */
export function useDisableTwoFactor() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (password: string) => ok(api.POST('/auth/2fa/disable', { body: { password } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: accountKeys.me }),
  });
}

export function useMySessions() {
  return useQuery({ queryKey: accountKeys.sessions, queryFn: async () => (await ok(api.GET('/auth/sessions'))).data.sessions });
}

/** Ends sessions, one DELETE each (the API has no bulk route); the list is asked again whatever the outcome. */
export function useEndSessions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (ids: string[]) => {
      for (const id of ids) {
        try {
          await ok(api.DELETE('/auth/sessions/{id}', { params: { path: { id } } }));
        } catch (err) {
          // Already ended (expired, or signed out meanwhile): that is what was asked.
          if (!(err instanceof ApiError && err.status === 404)) throw err;
        }
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: accountKeys.sessions }),
  });
}

/** PATCH /me: name and e-mail (a new e-mail with the password); the answer is who is signed in. */
export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: RequestBody<'/me', 'patch'>) => (await ok(api.PATCH('/me', { body }))).data.user,
    onSuccess: async (answer) => {
      queryClient.setQueryData(accountKeys.me, answer);
      await queryClient.invalidateQueries({ queryKey: accountKeys.me });
    },
  });
}

/** POST /auth/password/change; the other sessions end, so the list is asked again. */
export function useChangePassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: RequestBody<'/auth/password/change', 'post'>) => ok(api.POST('/auth/password/change', { body })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: accountKeys.sessions }),
  });
}

/** The preferences: seeded by GET /bootstrap (and kept by it), asked of GET /me/prefs only without it. */
export function usePrefs() {
  return useQuery({ queryKey: accountKeys.prefs, queryFn: async () => (await ok(api.GET('/me/prefs'))).data, staleTime: Infinity });
}

/**
 * PATCH /me/prefs, applied at once: the cached preferences take the choice before the answer
 * (`apply` shows the look), the answer or, on failure, the look before follows.
 */
export function useSavePrefs(apply: (look: ResolvedPrefs) => void, options?: Pick<MutationOptions<PrefsData, Partial<Prefs>>, 'onSettled'>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationKey: SAVE_PREFS,
    mutationFn: async (patch: Partial<Prefs>) => (await ok(api.PATCH('/me/prefs', { body: patch }))).data,
    onMutate: async (patch) => {
      // A read in flight (a navigation refetches /me/…) must not land over the choice just made.
      await queryClient.cancelQueries({ queryKey: accountKeys.prefs });
      const before = queryClient.getQueryData<PrefsData>(accountKeys.prefs);
      const concrete = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null)) as Partial<ResolvedPrefs>;
      if (before) {
        const source = { ...before.resolved.source, ...Object.fromEntries(Object.keys(concrete).map((k) => [k, 'user' as const])) };
        const resolved = { ...before.resolved, ...concrete, source };
        apply(resolved);
        queryClient.setQueryData<PrefsData>(accountKeys.prefs, { prefs: { ...before.prefs, ...patch }, resolved });
      }
      return { before };
    },
    // Quick choices overlap: an earlier answer would put back a look a later choice changed, so
    // only the answer to the last save in flight is taken as is.
    onSuccess: (answer) => {
      prefsSettled();
      if (queryClient.isMutating({ mutationKey: SAVE_PREFS }) <= 1) queryClient.setQueryData(accountKeys.prefs, answer);
    },
    onError: (_err, _patch, context) => {
      prefsSettled();
      if (context?.before) queryClient.setQueryData(accountKeys.prefs, context.before);
    },
  });
}

export function useNotificationPrefs() {
  return useQuery({ queryKey: accountKeys.notificationPrefs, queryFn: async () => (await ok(api.GET('/me/notification-prefs'))).data.prefs });
}

/** PUT /me/notification-prefs; the answer replaces the cached ones. */
export function useSaveNotificationPrefs() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (prefs: NotificationPref[]) => (await ok(api.PUT('/me/notification-prefs', { body: { prefs } }))).data.prefs,
    onSuccess: (prefs) => queryClient.setQueryData(accountKeys.notificationPrefs, prefs),
  });
}

/** The latest `limit` notifications (the bell's popover), under the notifications' key so the live channel refreshes them. */
export function useLatestNotifications(limit: number) {
  return useQuery({
    queryKey: [...accountKeys.notifications, 'latest', limit],
    queryFn: async () => (await ok(api.GET('/me/notifications', { params: { query: { limit } } }))).data.notifications,
  });
}

/** The count of unread notifications (the list endpoint answers it with any page; one row is asked for). */
export function useUnreadCount() {
  return useQuery({
    queryKey: accountKeys.unread,
    queryFn: async () => (await ok(api.GET('/me/notifications', { params: { query: { limit: 1, unread: 'true' } } }))).data.unreadCount,
  });
}

export function useNotificationList(pageSize: number) {
  return useInfiniteQuery({
    queryKey: accountKeys.notificationList,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (await ok(api.GET('/me/notifications', { params: { query: { limit: pageSize, ...(pageParam ? { cursor: pageParam } : {}) } } }))).data,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

/** Marks one notification read; every notification query is asked again whatever the outcome. */
export function useMarkRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await ok(api.POST('/me/notifications/{id}/read', { params: { path: { id } } }))).data.notification,
    onSettled: () => queryClient.invalidateQueries({ queryKey: accountKeys.notifications }),
  });
}

export function useMarkAllRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await ok(api.POST('/me/notifications/read-all'))).data.count,
    onSettled: () => queryClient.invalidateQueries({ queryKey: accountKeys.notifications }),
  });
}
