import { useQuery } from '@tanstack/react-query';
import { api, ok } from './client';

/** The catalogue's reads: the manifest and a bundle (public), and the locales Preferences offers (signed in). */

/** GET /i18n/manifest's data. */
export async function readManifest() {
  return (await ok(api.GET('/i18n/manifest'))).data;
}

/** One namespace's strings in one locale, merged along its fallback chain (GET /i18n/bundle/{locale}/{namespace}). */
export async function readBundle(locale: string, namespace: string): Promise<Record<string, string>> {
  return (await ok(api.GET('/i18n/bundle/{locale}/{namespace}', { params: { path: { locale, namespace } } }))).data.messages;
}

/** GET /i18n/locales's key: under the i18n area's prefix, so its `i18n.changed` refreshes the lists. */
export const i18nLocalesKey = ['i18n', 'locales'] as const;

/** The locales the instance has (GET /i18n/locales, signed in), as Preferences and the instance defaults offer them. */
export function useLocales() {
  return useQuery({ queryKey: i18nLocalesKey, queryFn: async () => (await ok(api.GET('/i18n/locales'))).data.locales });
}
