import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type RequestBody, type Schemas } from '../../api/client';
import type { MutationOptions } from '../../api/hooks';
import { accountKeys } from '../account/api';
import { bootstrapKey, type Bootstrap, type Branding } from '../../api/bootstrap';

export type Prefs = Schemas['Prefs'];
export type EmailView = { configured: boolean; smtp: Schemas['SmtpSettings'] | null };
export type BrandingInput = RequestBody<'/settings/branding', 'put'>;
export type Telemetry = Schemas['Telemetry'];
export type Workspace = Schemas['Workspace'];
export type SmtpInput = NonNullable<RequestBody<'/settings/email', 'put'>['smtp']>;

/** Query keys of the area, all under `['settings']`. */
export const settingsKeys = {
  all: ['settings'] as const,
  security: ['settings', 'security'] as const,
  roles: ['settings', 'roles'] as const,
  defaults: ['settings', 'defaults'] as const,
  email: ['settings', 'email'] as const,
  workspace: ['settings', 'workspace'] as const,
  telemetry: ['settings', 'telemetry'] as const,
};

export function useSecuritySettings() {
  return useQuery({ queryKey: settingsKeys.security, queryFn: async () => (await ok(api.GET('/settings/security'))).data.security });
}

/** The roles to tick for two-step verification. */
export function useSettingsRoles() {
  return useQuery({ queryKey: settingsKeys.roles, queryFn: async () => (await ok(api.GET('/roles', { params: { query: { limit: 500 } } }))).data.roles });
}

/** PUT /settings/security; the answer replaces the cached settings. */
export function useSaveSecurity() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (requireTwoFactorForRoles: string[]) => (await ok(api.PUT('/settings/security', { body: { requireTwoFactorForRoles } }))).data.security,
    onSuccess: (saved) => queryClient.setQueryData(settingsKeys.security, saved),
  });
}

export function useDefaults() {
  return useQuery({ queryKey: settingsKeys.defaults, queryFn: async () => (await ok(api.GET('/settings/defaults'))).data.defaults });
}

/** PUT /settings/defaults; everyone's resolved preferences may follow them, this person's included. */
export function useSaveDefaults() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: Prefs) => (await ok(api.PUT('/settings/defaults', { body }))).data.defaults,
    onSuccess: async (saved) => {
      queryClient.setQueryData(settingsKeys.defaults, saved);
      await queryClient.invalidateQueries({ queryKey: accountKeys.prefs });
    },
  });
}

export function useEmailSettings() {
  return useQuery({ queryKey: settingsKeys.email, queryFn: async () => (await ok(api.GET('/settings/email'))).data });
}

/** PUT /settings/email (`null` turns mail off); the answer is cached and the system's facts asked again. */
export function useSaveEmail(options?: MutationOptions<EmailView, SmtpInput | null>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: async (smtp: SmtpInput | null) => (await ok(api.PUT('/settings/email', { body: { smtp } }))).data,
    onSuccess: (answer, ...rest) => {
      queryClient.setQueryData(settingsKeys.email, answer);
      void queryClient.invalidateQueries({ queryKey: settingsKeys.workspace });
      return options?.onSuccess?.(answer, ...rest);
    },
  });
}

/** GET /settings/workspace: the overview's one read (BR4). */
export function useWorkspace() {
  return useQuery({ queryKey: settingsKeys.workspace, queryFn: async () => (await ok(api.GET('/settings/workspace'))).data.workspace });
}

/** A branding write's answer: the bootstrap's branding takes it at once (the shell and this screen show it), the overview is read again. */
function useBrandingWrite<V>(write: (value: V) => Promise<Branding>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: write,
    onSuccess: async (branding) => {
      queryClient.setQueryData<Bootstrap>(bootstrapKey, (old) => (old ? { ...old, branding } : old));
      await queryClient.invalidateQueries({ queryKey: settingsKeys.workspace });
    },
  });
}

/** PUT /settings/branding (fields left out stay; null clears). */
export function useSaveBranding() {
  return useBrandingWrite(async (body: BrandingInput) => (await ok(api.PUT('/settings/branding', { body }))).data.branding);
}

/** POST /branding/logo: multipart with one file part; the server knows the type by the bytes. */
export function useUploadLogo() {
  return useBrandingWrite(async (file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return (await ok(api.POST('/branding/logo', { body: form as never }))).data.branding;
  });
}

/** DELETE /branding/logo. */
export function useRemoveLogo() {
  return useBrandingWrite(async (_: void) => (await ok(api.DELETE('/branding/logo'))).data.branding);
}

export function useTelemetry() {
  return useQuery({ queryKey: settingsKeys.telemetry, queryFn: async () => (await ok(api.GET('/settings/telemetry'))).data });
}

/** PUT /settings/telemetry: the answer (with its new preview) replaces the cached one. */
export function useSaveTelemetry() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (enabled: boolean) => (await ok(api.PUT('/settings/telemetry', { body: { enabled } }))).data,
    onSuccess: async (answer) => {
      queryClient.setQueryData(settingsKeys.telemetry, answer);
      await queryClient.invalidateQueries({ queryKey: settingsKeys.workspace });
    },
  });
}

// Settings → Storage: where the meta store is, and moving it (POST /meta/relocate).

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
