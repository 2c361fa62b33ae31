import { useQuery, type QueryClient } from '@tanstack/react-query';
import { api, ok, type User } from './api/client';

export const ME = ['me'] as const;
export const SETUP_STATE = ['setup-state'] as const;

/** The signed-in user (GET /me); a 401 on it sends the person to sign-in (see api/client). */
export function useMe() {
  return useQuery({ queryKey: ME, queryFn: async () => (await ok(api.GET('/me'))).data.user });
}

export function useSetupState() {
  return useQuery({ queryKey: SETUP_STATE, queryFn: async () => (await ok(api.GET('/setup/state'))).data, staleTime: Infinity });
}

/** After a sign-in: forget what the previous person saw, and know who is signed in now. */
export function signedIn(queryClient: QueryClient, user: User): void {
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== SETUP_STATE[0] });
  queryClient.setQueryData(ME, user);
}
