import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type RequestBody, type Schemas } from '../../api/client';
import type { LiveKeys } from '../area';
import { parseCsv } from './csv';
import { uploadFile } from './upload';

export type Job = Schemas['Job'];
export type Import = Schemas['Import'];
export type Export = Schemas['Export'];
export type Table = Schemas['EffectiveSchemaTable'];
export type Column = Schemas['EffectiveSchemaColumn'];
export type { Upload } from './upload';

/** While something runs, how often its state is asked again (the live channel, when up, is quicker). */
export const POLL_MS = 700;

const FINAL = new Set(['succeeded', 'failed', 'cancelled', 'ready', 'expired']);
export const isFinal = (state: string) => FINAL.has(state);

/** Query keys: every query of this area starts with `['transfer']`, so one invalidation refreshes them all. */
export const transferKeys = {
  all: ['transfer'] as const,
  table: (conn: string, ref: string) => ['transfer', 'table', conn, ref] as const,
  import: (id: string) => ['transfer', 'import', id] as const,
  importReport: (id: string) => ['transfer', 'import-report', id] as const,
  export: (id: string) => ['transfer', 'export', id] as const,
  results: ['transfer', 'results'] as const,
  jobs: ['transfer', 'jobs'] as const,
  jobList: (state: string, kind: string, subject = '') => ['transfer', 'jobs', 'list', state, kind, subject] as const,
  job: (id: string) => ['transfer', 'jobs', id] as const,
};

/**
 * What refreshes the area's screens (Area.live): a job's events (D14, sent to the job's creator)
 * refresh the area's queries on top of their polling, so a running import, export or job moves
 * on at once while the live channel is up.
 */
export const transferLive: Readonly<Record<string, LiveKeys>> = {
  'job.progress': [transferKeys.all],
  'job.finished': [transferKeys.all],
};

/** A connection's table (the latest introspection with the overrides), and the connection. */
export function useTable(conn: string, ref: string) {
  return useQuery({
    queryKey: transferKeys.table(conn, ref),
    staleTime: 60_000,
    queryFn: async () => {
      const [schema, connection] = await Promise.all([
        ok(api.GET('/connections/{id}/schema', { params: { path: { id: conn } } })),
        ok(api.GET('/connections/{id}', { params: { path: { id: conn } } })),
      ]);
      const table = schema.data.model.tables.find((x) => x.ref === ref) ?? null;
      return { table, connection: connection.data.connection };
    },
  });
}

/** Asked again while the run is not over. */
const untilFinal = (q: { state: { data?: { state: string } | undefined } }) => (q.state.data && isFinal(q.state.data.state) ? false : POLL_MS);

/** Sends a file to import (POST /imports/upload); `onProgress` gets the fraction sent. */
export function useUpload(onProgress: (sent: number) => void, onUploaded: (upload: Awaited<ReturnType<typeof uploadFile>>) => void) {
  return useMutation({ mutationFn: (f: File) => uploadFile(f, onProgress), onSuccess: onUploaded });
}

/** Creates an import and runs it (a dry run or the real one). */
export function useStartImport(onStarted: (imp: Import) => void) {
  return useMutation({
    mutationFn: async (body: RequestBody<'/imports', 'post'>) => {
      const created = await ok(api.POST('/imports', { body }));
      const run = await ok(api.POST('/imports/{id}/run', { params: { path: { id: created.data.import.id } } }));
      return run.data.import;
    },
    onSuccess: onStarted,
  });
}

export function useImport(id: string) {
  return useQuery({
    queryKey: transferKeys.import(id),
    queryFn: async () => (await ok(api.GET('/imports/{id}', { params: { path: { id } } }))).data.import,
    refetchInterval: untilFinal,
  });
}

/** The error report of a finished import: its rows (line, reason, the source values), without the header. */
export function useImportReport(id: string) {
  return useQuery({
    queryKey: transferKeys.importReport(id),
    staleTime: Infinity,
    queryFn: async () => {
      const { data } = await api.GET('/imports/{id}/error-report', { params: { path: { id } }, parseAs: 'text' });
      return parseCsv(typeof data === 'string' ? data : '').slice(1);
    },
  });
}

export function useStartExport(onStarted: (exp: Export) => void) {
  return useMutation({
    mutationFn: async (body: RequestBody<'/exports', 'post'>) => (await ok(api.POST('/exports', { body }))).data.export,
    onSuccess: onStarted,
  });
}

export function useExport(id: string) {
  return useQuery({
    queryKey: transferKeys.export(id),
    queryFn: async () => (await ok(api.GET('/exports/{id}', { params: { path: { id } } }))).data.export,
    refetchInterval: untilFinal,
  });
}

/** Cancels the job of an export; the export is asked again whatever the outcome. */
export function useCancelExport(exportId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (jobId: string) => ok(api.POST('/jobs/{id}/cancel', { params: { path: { id: jobId } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: transferKeys.export(exportId) }),
  });
}

/** How many of the newest imports and exports are searched for the one a job ran (the job does not name it, J1). */
const RESULTS_PAGE = 500;

/**
 * The imports and exports behind jobs, by job id. A job's payload stays out of the API
 * (decisions J1), so the link goes the other way: each import and export names its job.
 */
export function useResults(enabled: boolean, refresh: boolean) {
  return useQuery({
    queryKey: transferKeys.results,
    enabled,
    refetchInterval: refresh ? POLL_MS * 2 : false,
    queryFn: async () => {
      const [imports, exports] = await Promise.all([
        ok(api.GET('/imports', { params: { query: { limit: RESULTS_PAGE, all: 'true' } } })).catch(() => null),
        ok(api.GET('/exports', { params: { query: { limit: RESULTS_PAGE, all: 'true' } } })).catch(() => null),
      ]);
      const byJob = new Map<string, { import?: Import; export?: Export }>();
      for (const i of imports?.data.imports ?? []) if (i.jobId) byJob.set(i.jobId, { import: i });
      for (const e of exports?.data.exports ?? []) if (e.jobId) byJob.set(e.jobId, { export: e });
      return byJob;
    },
  });
}

/** Cancels a job; everything of the area is asked again whatever the outcome. */
export function useCancelJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await ok(api.POST('/jobs/{id}/cancel', { params: { path: { id } } }))).data.job,
    onSettled: () => queryClient.invalidateQueries({ queryKey: transferKeys.all }),
  });
}

/** Jobs, `pageSize` a page, filtered by state and kind (`''`: any); asked again while one runs. */
/** `subject` narrows to one thing's jobs (a scheduled report's runs, J3). */
export function useJobList(pageSize: number, state: Job['state'] | '', kind: string, subject = '') {
  return useInfiniteQuery({
    queryKey: transferKeys.jobList(state, kind, subject),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await ok(
          api.GET('/jobs', {
            params: {
              query: {
                limit: pageSize,
                ...(pageParam ? { cursor: pageParam } : {}),
                ...(state ? { state } : {}),
                ...(kind ? { kind } : {}),
                ...(subject ? { subject } : {}),
              },
            },
          }),
        )
      ).data,
    placeholderData: (previous) => previous,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.jobs.some((j) => !isFinal(j.state))) ? POLL_MS : false),
  });
}

export function useJob(id: string) {
  return useQuery({
    queryKey: transferKeys.job(id),
    queryFn: async () => (await ok(api.GET('/jobs/{id}', { params: { path: { id } } }))).data.job,
    refetchInterval: untilFinal,
  });
}
