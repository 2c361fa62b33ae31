import { useMutation, useQuery, useQueryClient, type QueryClient, type QueryFunctionContext } from '@tanstack/react-query';
import { api, ApiError, ok } from './client';
import type { PrefsData } from '../areas/account/api';
import { accountKeys, prefsSeedable } from '../areas/account/keys';

/** GET /bootstrap's answer: the instance, and the signed-in person's session (null when signed out). */
export type Bootstrap = Awaited<ReturnType<typeof getBootstrap>>;
export type BootstrapSession = NonNullable<Bootstrap['session']>;
export type Nav = BootstrapSession['nav'];
export type NavEntry = Nav['sections'][number]['entries'][number];
export type Onboarding = BootstrapSession['onboarding'];
export type Grant = BootstrapSession['grants'][number];

export const bootstrapKey = ['bootstrap'] as const;

/**
 * The live events after which the bootstrap is asked again (shell/LiveSync.tsx): the navigation
 * (pages, their order, apps' placements), the onboarding's facts (connections, the public API),
 * a notification (a change of roles is announced by one: the permissions follow), and the branding.
 */
export const BOOTSTRAP_STALE_KINDS: ReadonlySet<string> = new Set([
  'pages.changed',
  'pages.nav.changed',
  'connections.changed',
  'public.changed',
  'notification.created',
  'branding.changed',
]);

async function getBootstrap() {
  try {
    return (await ok(api.GET('/bootstrap'))).data;
  } catch (err) {
    // A session that ended: the answer cleared the cookie (and the client went to sign-in); asked again, it is the signed-out answer.
    if (err instanceof ApiError && err.status === 401) return (await ok(api.GET('/bootstrap'))).data;
    throw err;
  }
}

/**
 * The answer's parts that other screens keep under their own keys (who is signed in, the
 * preferences, the unread count) go into those caches with it, so their hooks find them fresh
 * and ask nothing on first paint (decisions DB30). Later, each refreshes its own way.
 */
function seed(client: QueryClient, data: Bootstrap, askedAt: number): void {
  const session = data.session;
  if (!session) return;
  client.setQueryData(accountKeys.me, session.user);
  if (prefsSeedable(client, askedAt)) client.setQueryData<PrefsData>(accountKeys.prefs, session.prefs);
  client.setQueryData(accountKeys.unread, session.unreadNotifications);
}

async function fetchBootstrap({ client }: QueryFunctionContext) {
  const askedAt = performance.now();
  const data = await getBootstrap();
  seed(client, data, askedAt);
  return data;
}

/** The bootstrap's query options (for `ensureQueryData` in another query's function). */
export const bootstrapQuery = { queryKey: bootstrapKey, queryFn: fetchBootstrap, staleTime: 30_000 } as const;

/**
 * Everything the first paint needs, in one request (issue 28 §5): the setup state, the session,
 * its permissions, preferences, navigation and unread count. The one source of the navigation.
 */
export function useBootstrap() {
  return useQuery(bootstrapQuery);
}

/** A part of the bootstrap, as its own query result (isPending, isError, refetch as useBootstrap's). */
export function useBootstrapPart<T>(select: (data: Bootstrap) => T, enabled = true) {
  return useQuery({ ...bootstrapQuery, select, enabled });
}

/** The signed-in session of the bootstrap, or undefined (not known yet, or signed out). */
export function useBootstrapSession(): BootstrapSession | undefined {
  return useBootstrap().data?.session ?? undefined;
}

/**
 * Whether the caller holds `permission` on a table: unscoped (in `permissions`, not in `grants`),
 * or through a grant scoped to its connection or to the table itself (decisions DB30).
 */
export function grantsTable(session: BootstrapSession | undefined, permission: string, connectionId: string, table: string): boolean {
  if (!session?.permissions.includes(permission)) return false;
  const scoped = session.grants.filter((g) => g.permission === permission);
  if (scoped.length === 0) return true;
  return scoped.some((g) => g.scope.connectionId === connectionId && (g.scope.table === undefined || g.scope.table === table));
}

/** The signed-in person's onboarding checklist: GET /bootstrap's `session.onboarding` (the same as GET /onboarding). */
export function useOnboarding(): Onboarding | undefined {
  return useBootstrapSession()?.onboarding;
}

/** POST /onboarding/dismiss: the checklist goes at once (the cached bootstrap says so), for this person only. */
export function useDismissOnboarding() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await ok(api.POST('/onboarding/dismiss'))).data,
    onSuccess: () => {
      queryClient.setQueryData<Bootstrap>(bootstrapKey, (old) =>
        old?.session ? { ...old, session: { ...old.session, onboarding: { ...old.session.onboarding, dismissed: true } } } : old,
      );
      return queryClient.invalidateQueries({ queryKey: bootstrapKey });
    },
  });
}

export type Branding = Bootstrap['branding'];

/**
 * The instance's branding (GET /bootstrap's `branding`, the same as GET /branding): the sign-in
 * page, the shell and Settings → Branding read it here, and `branding.changed` asks for the
 * bootstrap again (BOOTSTRAP_STALE_KINDS), so an open dashboard follows a change (BR11).
 */
export function useBranding(): Branding | undefined {
  return useBootstrapPart((b) => b.branding).data;
}
