import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type RequestBody, type Schemas } from '../../api/client';
import type { LiveKeys } from '../area';

export type Report = Schemas['ScheduledReport'];
export type ReportSource = Schemas['ReportSource'];
export type Recipient = Schemas['ReportRecipient'];
export type ReportBody = RequestBody<'/scheduled-reports', 'post'>;
export type User = Schemas['User'];

/** Every key of the area starts with 'reports': one invalidation refreshes the screens. */
export const reportsKeys = {
  all: ['reports'] as const,
  list: ['reports', 'list'] as const,
  users: ['reports', 'users'] as const,
  views: (pageId: string) => ['reports', 'views', pageId] as const,
  schema: (conn: string) => ['reports', 'schema', conn] as const,
};

/** The job kind of a run (RP4); "Run now" queues one, the history lists them. */
export const RUN_KIND = 'scheduled-reports.run';

/** A run's end changes the report's last run and next run: the list is asked again (DB32). */
export const reportsLive: Readonly<Record<string, LiveKeys>> = {
  'job.finished': [reportsKeys.all],
};

/** Every report the caller sees (own ones; everyone's with reports.admin), newest first. */
export function useReports() {
  return useQuery({
    queryKey: reportsKeys.list,
    queryFn: async () => {
      const out: Report[] = [];
      let cursor: string | undefined;
      for (;;) {
        const d = (await ok(api.GET('/scheduled-reports', { params: { query: { limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        out.push(...d.reports);
        if (!d.nextCursor) return out;
        cursor = d.nextCursor;
      }
    },
  });
}

/** The instance's users for the recipients (GET /users needs users.read: null when refused, then e-mails are typed). */
export function useUsers() {
  return useQuery({
    queryKey: reportsKeys.users,
    staleTime: 60_000,
    queryFn: async () => {
      try {
        return (await ok(api.GET('/users', { params: { query: { limit: 500, status: 'active' } } }))).data.users;
      } catch {
        return null;
      }
    },
  });
}

/** A connection's effective schema (its tables and columns), asked once a connection is chosen. */
export function useConnectionSchema(conn: string) {
  return useQuery({
    queryKey: reportsKeys.schema(conn),
    enabled: conn !== '',
    staleTime: 60_000,
    queryFn: async () => (await ok(api.GET('/connections/{id}/schema', { params: { path: { id: conn } } }))).data,
  });
}

/** A page's shared views (GET /pages/{id}/views); asked once a page is chosen. */
export function usePageViews(pageId: string) {
  return useQuery({
    queryKey: reportsKeys.views(pageId),
    enabled: pageId !== '',
    queryFn: async () => (await ok(api.GET('/pages/{pageId}/views', { params: { path: { pageId } } }))).data.views,
  });
}

function useInvalidate() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: reportsKeys.all });
}

export function useCreateReport() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (body: ReportBody) => (await ok(api.POST('/scheduled-reports', { body }))).data.report,
    onSuccess: invalidate,
  });
}

export function useUpdateReport(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (body: RequestBody<'/scheduled-reports/{id}', 'patch'>) =>
      (await ok(api.PATCH('/scheduled-reports/{id}', { params: { path: { id } }, body }))).data.report,
    onSuccess: invalidate,
  });
}

export function useDeleteReport(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => ok(api.DELETE('/scheduled-reports/{id}', { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: reportsKeys.list }),
  });
}

/** Switches a report on or off from the list: shown switched at once, put back if the server refuses. */
export function useToggleReport() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, enabled }: { id: string; enabled: boolean }) =>
      (await ok(api.PATCH('/scheduled-reports/{id}', { params: { path: { id } }, body: { enabled } }))).data.report,
    onMutate: async ({ id, enabled }) => {
      await qc.cancelQueries({ queryKey: reportsKeys.list });
      const before = qc.getQueryData<Report[]>(reportsKeys.list);
      qc.setQueryData<Report[]>(reportsKeys.list, (list) => list?.map((r) => (r.id === id ? { ...r, enabled } : r)));
      return { before };
    },
    onError: (_error, _vars, context) => {
      if (context?.before) qc.setQueryData(reportsKeys.list, context.before);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: reportsKeys.all }),
  });
}

/** "Run now": POST /jobs with the run's kind (RP4). */
export function useRunNow(reportId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => (await ok(api.POST('/jobs', { body: { kind: RUN_KIND, payload: { reportId } } }))).data.job,
    onSuccess: () => qc.invalidateQueries({ queryKey: ['transfer', 'jobs'] }),
  });
}
