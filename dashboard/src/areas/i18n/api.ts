import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../../api/client';
import { getManifest } from '../../i18n/t';
import { i18nLocalesKey, useLocales } from '../../shell/prefs';

export type Locale = Schemas['I18nLocale'];
/** One message of GET /i18n/keys. */
export interface KeyRow {
  namespace: string;
  key: string;
  source: string;
  value: string | null;
  state: 'translated' | 'missing' | 'fallback' | 'override';
  updatedAt: number | null;
}
/** One entry of GET /i18n/format-errors. */
export interface FormatError {
  locale: string;
  namespace: string;
  key: string;
  kind: 'syntax' | 'placeholders' | 'plural-other' | 'tags';
  message: string;
  offset?: number;
  expected?: string[];
  found?: string[];
}
/** POST /i18n/import/{locale}'s answer. */
export interface ImportResult {
  created: number;
  updated: number;
  unchanged: number;
  rejected: Array<{ namespace: string; key: string; reason: string }>;
}
export type ExportFormat = 'json' | 'po' | 'xliff';

/** Query keys of the area, all under `['i18n']` (GET /i18n/locales's too: shell/prefs.ts). */
export const i18nKeys = {
  all: ['i18n'] as const,
  locales: i18nLocalesKey,
  manifest: ['i18n', 'manifest'] as const,
  keys: (locale: string, namespace: string, q: string, missing: boolean) => ['i18n', 'keys', locale, namespace, q, missing] as const,
  bundle: (locale: string, namespace: string) => ['i18n', 'bundle', locale, namespace] as const,
  formatErrors: (locale: string) => ['i18n', 'format-errors', locale] as const,
};

/** `i18n.changed` (a translation, a locale) refreshes every query of the area; the shell refreshes the strings shown (i18n/t.ts). */
export const i18nLive = { 'i18n.changed': [i18nKeys.all] } as const;

export { useLocales };

/** The namespaces, from the manifest (the same list for every locale). */
export function useNamespaces() {
  return useQuery({ queryKey: i18nKeys.manifest, queryFn: async () => (await getManifest(true))?.namespaces ?? [] });
}

/** The keys of one locale, a page at a time (GET /i18n/keys). */
export function useKeys(locale: string, namespace: string, q: string, missing: boolean) {
  return useInfiniteQuery({
    queryKey: i18nKeys.keys(locale, namespace, q, missing),
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) =>
      (
        await ok(
          api.GET('/i18n/keys', {
            params: {
              query: {
                locale,
                ...(namespace ? { namespace } : {}),
                ...(q ? { q } : {}),
                ...(missing ? { missing: 'true' as const } : {}),
                limit: 50,
                ...(pageParam ? { cursor: pageParam } : {}),
              },
            },
          }),
        )
      ).data,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  });
}

/** One namespace of a locale as the dashboard shows it (merged along its fallbacks): the editor's "fallback" column. */
export function useBundle(locale: string | null, namespace: string) {
  return useQuery({
    queryKey: i18nKeys.bundle(locale ?? '', namespace),
    enabled: locale !== null && namespace !== '',
    queryFn: async () =>
      (await ok(api.GET('/i18n/bundle/{locale}/{namespace}', { params: { path: { locale: locale ?? '', namespace } } }))).data.messages as Record<
        string,
        string
      >,
  });
}

export function useFormatErrors(locale: string) {
  return useQuery({
    queryKey: i18nKeys.formatErrors(locale),
    queryFn: async () => (await ok(api.GET('/i18n/format-errors', { params: { query: { locale } } }))).data.errors,
  });
}

function useAreaMutation<V, R>(fn: (vars: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => queryClient.invalidateQueries({ queryKey: i18nKeys.all }) });
}

export function useAddLocale() {
  return useAreaMutation(async (body: { locale: string; name: string; fallback?: string; dir?: 'ltr' | 'rtl' }) => ok(api.POST('/i18n/locales', { body })));
}

export function usePatchLocale() {
  return useAreaMutation(async ({ locale, ...body }: { locale: string; name?: string; fallback?: string; dir?: 'ltr' | 'rtl'; enabled?: boolean }) =>
    ok(api.PATCH('/i18n/locales/{locale}', { params: { path: { locale } }, body })),
  );
}

export function useDeleteLocale() {
  return useAreaMutation(async (locale: string) => ok(api.DELETE('/i18n/locales/{locale}', { params: { path: { locale } } })));
}

export function useSaveKey() {
  return useAreaMutation(async (body: { namespace: string; key: string; locale: string; value: string }) => ok(api.PUT('/i18n/keys', { body })));
}

export function useRemoveKey() {
  return useAreaMutation(async (query: { namespace: string; key: string; locale: string }) => ok(api.DELETE('/i18n/keys', { params: { query } })));
}

/** POST /i18n/import/{locale}: multipart with the one file; the format and options in the query. */
export function useImport() {
  return useAreaMutation(
    async ({ locale, file, format, dryRun, overwrite }: { locale: string; file: File; format: ExportFormat; dryRun: boolean; overwrite: boolean }) => {
      const form = new FormData();
      form.append('file', file, file.name);
      const query = { format, dryRun: String(dryRun) as 'true' | 'false', overwrite: String(overwrite) as 'true' | 'false' };
      return (await ok(api.POST('/i18n/import/{locale}', { params: { path: { locale }, query }, body: form as never }))).data;
    },
  );
}

/** The export's address: a download link (GET /i18n/export/{locale} answers the file as an attachment). */
export function exportHref(locale: string, format: ExportFormat, namespace: string): string {
  const query = new URLSearchParams({ format, ...(namespace ? { namespace } : {}) });
  return `/api/v1/i18n/export/${encodeURIComponent(locale)}?${query.toString()}`;
}
