import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type RequestBody } from '../../api/client';

export type RelocateBody = RequestBody<'/meta/relocate', 'post'>;

export const storageKeys = {
  placement: ['settings', 'storage', 'placement'] as const,
  job: (id: string) => ['settings', 'storage', 'job', id] as const,
};

const FINAL = new Set(['succeeded', 'failed', 'cancelled']);

/** GET /meta/placement, asked again every half second while a relocation runs here. */
export function usePlacement() {
  return useQuery({
    queryKey: storageKeys.placement,
    queryFn: async () => (await ok(api.GET('/meta/placement'))).data,
    refetchInterval: (q) => {
      const phase = q.state.data?.relocation?.phase;
      return phase && phase !== 'done' && phase !== 'failed' ? 500 : false;
    },
  });
}

/** POST /meta/relocate: the job it queued. */
export function useRelocate() {
  return useMutation({
    mutationFn: async (body: RelocateBody) => (await ok(api.POST('/meta/relocate', { body }))).data.job,
  });
}

/** One relocation job, asked again until it is over; the placement is asked again then. */
export function useRelocationJob(id: string | null) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: storageKeys.job(id ?? ''),
    enabled: id !== null,
    queryFn: async () => {
      const job = (await ok(api.GET('/jobs/{id}', { params: { path: { id: id! } } }))).data.job;
      if (FINAL.has(job.state)) await queryClient.invalidateQueries({ queryKey: storageKeys.placement });
      return job;
    },
    refetchInterval: (q) => (q.state.data && FINAL.has(q.state.data.state) ? false : 500),
  });
}
