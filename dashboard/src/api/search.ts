import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ok } from './client';

/** GET /search for the command palette (issue 28 §3): grouped results of what the caller may see. */
export function useSearch(q: string) {
  const query = q.trim();
  return useQuery({
    queryKey: ['search', query],
    queryFn: async () => (await ok(api.GET('/search', { params: { query: { q: query } } }))).data,
    enabled: query.length > 0,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
    retry: false,
  });
}
