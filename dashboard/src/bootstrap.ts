import { useQuery } from '@tanstack/react-query';
import { api, ok } from './api/client';

/** GET /bootstrap's answer: the instance, and the signed-in person's session (null when signed out). */
export type Bootstrap = Awaited<ReturnType<typeof fetchBootstrap>>;
export type BootstrapSession = NonNullable<Bootstrap['session']>;
export type Nav = BootstrapSession['nav'];
export type NavEntry = Nav['sections'][number]['entries'][number];

export const bootstrapKey = ['bootstrap'] as const;

async function fetchBootstrap() {
  return (await ok(api.GET('/bootstrap'))).data;
}

/**
 * Everything the first paint needs, in one request (issue 28 §5): the setup state, the session,
 * its permissions, preferences, navigation and unread count. The one source of the navigation.
 */
export function useBootstrap() {
  return useQuery({ queryKey: bootstrapKey, queryFn: fetchBootstrap, staleTime: 30_000 });
}
