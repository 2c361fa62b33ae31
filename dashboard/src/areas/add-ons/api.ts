import { useQuery } from '@tanstack/react-query';
import { api, ok, type Schemas } from '../../api/client';
import { t } from '../../i18n/t';

export type Addon = Schemas['Addon'];
export type AddonPlan = Schemas['AddonPlan'];
export type CatalogEntry = Schemas['AddonCatalogEntry'];
export type Staged = Schemas['StagedAddon'];
export type Connection = Schemas['Connection'];
export type SettingField = Addon['settingsSchema'][number];

/** Query keys of the area: everything under ADDONS is refetched after any change. */
export const ADDONS = ['add-ons'] as const;
export const INSTALLED = [...ADDONS, 'installed'] as const;
export const CATALOG = [...ADDONS, 'catalog'] as const;
export const CONNECTIONS = ['connections', 'all'] as const;

export function useInstalled() {
  return useQuery({ queryKey: INSTALLED, queryFn: async () => (await ok(api.GET('/add-ons'))).data });
}

export function useCatalog() {
  return useQuery({ queryKey: CATALOG, queryFn: async () => (await ok(api.GET('/add-ons/catalog'))).data });
}

/** Every connection (the plan screen offers them; an instance has a handful). */
export function useConnections() {
  return useQuery({
    queryKey: CONNECTIONS,
    queryFn: async () => {
      const all: Connection[] = [];
      let cursor: string | undefined;
      do {
        const page = (await ok(api.GET('/connections', { params: { query: cursor ? { cursor } : {} } }))).data;
        all.push(...page.connections);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return all;
    },
  });
}

/** The plan of installing or upgrading to `version` (on `connectionId`), or, without a version, of removing. */
export function usePlan(key: string, version: string | null, connectionId: string | null, enabled = true) {
  return useQuery({
    queryKey: [...ADDONS, 'plan', key, version, connectionId],
    enabled,
    staleTime: 0,
    // The plan on screen is the plan confirmed (its hash): it never changes under the person's
    // eyes. It is asked again only when they pick another connection or the server says it changed.
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    queryFn: async () =>
      (
        await ok(
          api.GET('/add-ons/{key}/plan', {
            params: { path: { key }, query: { ...(version ? { version } : {}), ...(connectionId ? { connectionId } : {}) } },
          }),
        )
      ).data.plan,
  });
}

/** Stages a package file (POST /add-ons/upload, multipart with one file part). */
export async function uploadPackage(file: File): Promise<Staged> {
  const form = new FormData();
  form.append('file', file, file.name);
  return (await ok(api.POST('/add-ons/upload', { body: form as never }))).data.staged;
}

/** Dates in the person's own locale (the browser's). */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const when = (ms: number) => dateFormat.format(new Date(ms));

/** Whether semver `a` is newer than `b` (pre-releases compare as their release: enough for offering upgrades). */
export function newer(a: string, b: string): boolean {
  const parts = (v: string) => v.split(/[-+]/)[0]!.split('.').map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

/** A connection's name for an add-on's `connectionId`. */
export function connectionName(connections: readonly Connection[], id: string | null): string {
  if (!id) return t('addOns.connection.none');
  return connections.find((c) => c.id === id)?.name ?? id;
}
