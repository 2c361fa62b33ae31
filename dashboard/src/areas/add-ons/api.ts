import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef } from 'react';
import { api, ApiError, ok, type ApiPaths, type Schemas } from '../../api/client';
import { t } from '../../i18n/t';
import type { After } from '../area';
import type { Json } from './bridge-message';

export type Addon = Schemas['Addon'];
export type AddonPlan = Schemas['AddonPlan'];
export type CatalogEntry = Schemas['AddonCatalogEntry'];
export type Staged = Schemas['StagedAddon'];
export type Connection = Schemas['Connection'];
export type SettingField = Addon['settingsSchema'][number];
export type Surface = Schemas['Surface'];
export type Instance = Schemas['AppInstance'];
/** Settings as sent: a value per field, null to clear one. */
export type SettingsInput = Record<string, string | number | boolean | null>;
type JsonBody<T> = T extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type InstallBody = JsonBody<ApiPaths['/add-ons']['post']>;
type UpgradeBody = JsonBody<ApiPaths['/add-ons/{key}/upgrade']['post']>;
type ActionBody = JsonBody<ApiPaths['/public/apps/{key}/actions/{name}']['post']>;

/**
 * Query keys of the area: everything under `all` is read again after any change to an add-on.
 * GET /surfaces has its own key (the navigation, an app's page and the placement control share
 * it); the list of connections is read under the connections' prefix on purpose, so the
 * connections area's own refreshes reach it.
 */
export const addOnsKeys = {
  all: ['add-ons'] as const,
  installed: ['add-ons', 'installed'] as const,
  catalog: ['add-ons', 'catalog'] as const,
  /** Every plan of one add-on (any version, any connection). */
  plans: (key: string) => ['add-ons', 'plan', key] as const,
  plan: (key: string, version: string | null, connectionId: string | null) => ['add-ons', 'plan', key, version, connectionId] as const,
  connections: ['connections', 'all'] as const,
  surfaces: ['surfaces'] as const,
  sessionRoles: ['session', 'roles'] as const,
};

export function useInstalled() {
  return useQuery({ queryKey: addOnsKeys.installed, queryFn: async () => (await ok(api.GET('/add-ons'))).data });
}

export function useCatalog() {
  return useQuery({ queryKey: addOnsKeys.catalog, queryFn: async () => (await ok(api.GET('/add-ons/catalog'))).data });
}

/** Every connection (the plan screen offers them; an instance has a handful). */
export function useConnections() {
  return useQuery({
    queryKey: addOnsKeys.connections,
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
    queryKey: addOnsKeys.plan(key, version, connectionId),
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

/** Puts the add-on the server answered in the list the screens read, then reads the area again. */
export function useStoreAddon() {
  const queryClient = useQueryClient();
  return async (addon: Addon) => {
    queryClient.setQueryData(addOnsKeys.installed, (old: { addons: Addon[] } | undefined) =>
      old ? { ...old, addons: old.addons.map((a) => (a.key === addon.key ? addon : a)) } : old,
    );
    await queryClient.invalidateQueries({ queryKey: addOnsKeys.all });
  };
}

/** Enables or disables an add-on: the answer is shown at once, the area read again once settled. */
export function useSetEnabled(addon: Addon) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (enabled: boolean) => (await ok(api.PATCH('/add-ons/{key}', { params: { path: { key: addon.key } }, body: { enabled } }))).data.addon,
    onSuccess: (saved) =>
      queryClient.setQueryData(addOnsKeys.installed, (old: { addons: Addon[] } | undefined) =>
        old ? { ...old, addons: old.addons.map((a) => (a.key === addon.key ? saved : a)) } : old,
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: addOnsKeys.all }),
  });
}

/**
 * The save of an add-on's own settings (PATCH /add-ons/{key}) for the settings form, which runs
 * it as its mutation: the answer goes into the list, and the area is read again.
 */
export function useSaveSettings(addon: Addon): (settings: SettingsInput) => Promise<Addon> {
  const store = useStoreAddon();
  return async (settings) => {
    const saved = (await ok(api.PATCH('/add-ons/{key}', { params: { path: { key: addon.key } }, body: { settings } }))).data.addon;
    void store(saved);
    return saved;
  };
}

/** Brings a catalog version into the staging area; `after` runs once the area was read again (it opens the plan). */
export function useDownload(after: After<Staged, { key: string; version: string }> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (v: { key: string; version: string }) => (await ok(api.POST('/add-ons/download', { body: v }))).data.staged,
    onSuccess: async (staged, v) => {
      await queryClient.invalidateQueries({ queryKey: addOnsKeys.all });
      await after.onSuccess?.(staged, v);
    },
  });
}

/** Stages a package file (POST /add-ons/upload, multipart with one file part); `after` runs once the area was read again. */
export function useUpload(after: After<Staged, File> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return (await ok(api.POST('/add-ons/upload', { body: form as never }))).data.staged;
    },
    onSuccess: async (staged, file) => {
      await queryClient.invalidateQueries({ queryKey: addOnsKeys.all });
      await after.onSuccess?.(staged, file);
    },
  });
}

/** Forgets a staged package. */
export function useForgetStaged() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (s: Staged) => ok(api.DELETE('/add-ons/staged/{key}/{version}', { params: { path: { key: s.key, version: s.version } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: addOnsKeys.all }),
  });
}

/** Reads the catalog sources again: the answer is the new catalog (with each source's outcome). */
export function useRefreshCatalog() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await ok(api.POST('/add-ons/catalog/refresh'))).data,
    onSuccess: (data) => queryClient.setQueryData(addOnsKeys.catalog, data),
  });
}

/** Installing or upgrading to a staged version, confirmed with the hash of the plan read. */
export type Confirm = { upgrade: false; body: InstallBody } | { upgrade: true; key: string; body: UpgradeBody };

/**
 * Carries out a plan. On success the area is read again, then `after.onSuccess` runs. When the
 * plan changed meanwhile (409 ADDON_PLAN_CHANGED) `after.onError` runs, then the add-on's plans
 * are read again so the new plan is shown.
 */
export function useConfirmPlan(after: After<void, Confirm> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (c: Confirm) => {
      if (c.upgrade) await ok(api.POST('/add-ons/{key}/upgrade', { params: { path: { key: c.key } }, body: c.body }));
      else await ok(api.POST('/add-ons', { body: c.body }));
    },
    onSuccess: async (_, c) => {
      await queryClient.invalidateQueries({ queryKey: addOnsKeys.all });
      await after.onSuccess?.(undefined, c);
    },
    onError: async (error, c) => {
      await after.onError?.(error, c);
      if (error instanceof ApiError && error.code === 'ADDON_PLAN_CHANGED')
        await queryClient.invalidateQueries({ queryKey: addOnsKeys.plans(c.upgrade ? c.key : c.body.key) });
    },
  });
}

/** Removes an add-on (keeping or dropping its tables); `after` runs once the area was read again. */
export function useRemoveAddon(addon: Addon, after: After<{ droppedTables: string[] }, boolean> = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (drop: boolean) =>
      (await ok(api.DELETE('/add-ons/{key}', { params: { path: { key: addon.key }, query: { dropData: drop ? 'true' : 'false' } } }))).data,
    onSuccess: async (data, drop) => {
      queryClient.removeQueries({ queryKey: addOnsKeys.plans(addon.key) });
      await queryClient.invalidateQueries({ queryKey: addOnsKeys.all });
      await after.onSuccess?.(data, drop);
    },
  });
}

/** Stores the provider's secret fields (D29); `after.onSuccess` runs first, then the answer goes into the list. */
export function useConnectSecret(addon: Addon, after: After<Addon, Record<string, string>> = {}) {
  const store = useStoreAddon();
  return useMutation({
    mutationFn: async (fields: Record<string, string>) =>
      (await ok(api.POST('/add-ons/{key}/connect', { params: { path: { key: addon.key } }, body: { fields } }))).data.addon,
    onSuccess: async (saved, fields) => {
      await after.onSuccess?.(saved, fields);
      await store(saved);
    },
  });
}

/** Starts the OAuth flow (AO15): the answer names where to send the person. */
export function useOAuthStart(addon: Addon, after: After<{ authorizeUrl: string }, void> = {}) {
  return useMutation({
    mutationFn: async () => (await ok(api.POST('/add-ons/{key}/connect/oauth/start', { params: { path: { key: addon.key } } }))).data,
    onSuccess: after.onSuccess,
  });
}

/** Forgets how the add-on reaches its provider; `after.onSuccess` runs first, then the answer goes into the list. */
export function useDisconnect(addon: Addon, after: After<Addon, void> = {}) {
  const store = useStoreAddon();
  return useMutation({
    mutationFn: async () => (await ok(api.DELETE('/add-ons/{key}/connect', { params: { path: { key: addon.key } } }))).data.addon,
    onSuccess: async (saved) => {
      await after.onSuccess?.(saved);
      await store(saved);
    },
  });
}

/** A state opens `complete` once: the call is kept per state so a second render (or React's strict mode) does not spend it twice. */
const completions = new Map<string, Promise<Addon>>();

/** Completes the OAuth flow with the provider's code and state (once per state); the add-on is stored before the answer. */
export function useCompleteOAuth(): (key: string, code: string, state: string) => Promise<Addon> {
  const store = useStoreAddon();
  return async (key, code, state) => {
    let call = completions.get(state);
    if (!call) {
      call = ok(api.POST('/add-ons/{key}/connect/oauth/complete', { params: { path: { key } }, body: { code, state } })).then((r) => r.data.addon);
      completions.set(state, call);
    }
    const addon = await call;
    await store(addon);
    return addon;
  };
}

/** GET /surfaces: every app's pages (with their placement, names and instances). */
export function useSurfaces(enabled = true) {
  return useQuery({ queryKey: addOnsKeys.surfaces, enabled, queryFn: async () => (await ok(api.GET('/surfaces'))).data.surfaces });
}

/** The signed-in person's role ids (asked once a few minutes); undefined until known. */
export function useSessionRoles(): string[] | undefined {
  return useQuery({
    queryKey: addOnsKeys.sessionRoles,
    queryFn: async () => (await ok(api.GET('/auth/session'))).data.roles,
    staleTime: 5 * 60_000,
  }).data;
}

/**
 * A change to part of GET /surfaces' answer (PUT /surfaces/domains, PUT /surfaces/instances):
 * the cached list takes the server's answer at once (`merge`), and is read again once the change
 * has settled, refused or not. `onDone` runs before the merge reaches the screen: a row the change
 * removed (and the component that asked) is gone after it, and mutate()'s own callbacks would not run.
 */
function useSurfacesChange<C, R>(
  send: (change: C) => Promise<R>,
  merge: (surfaces: Surface[], after: R) => Surface[],
  onDone: (change: C, after: R) => void = () => undefined,
) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: send,
    onSuccess: (after, change) => {
      onDone(change, after);
      queryClient.setQueryData(addOnsKeys.surfaces, (old: Surface[] | undefined) => old && merge(old, after));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: addOnsKeys.surfaces }),
  });
}

/** Places a dashboard page in the navigation (or takes it out, `nav` null): the answer is shown at once. */
export function usePlacePage(page: Surface) {
  return useSurfacesChange(
    async (nav: { section: string; order: number } | null) =>
      (await ok(api.PUT('/surfaces/{appKey}/placement', { params: { path: { appKey: page.appKey } }, body: { surface: page.name, nav } }))).data.surfaces,
    (surfaces, answered) => {
      const mine = new Map(answered.map((s) => [`${s.appKey}/${s.name}`, s]));
      return surfaces.map((s) => mine.get(`${s.appKey}/${s.name}`) ?? s);
    },
  );
}

export type DomainEntry = Schemas['SurfaceDomainInput'];
type Mapped = Schemas['SurfaceDomain'];
export type DomainChange = { add: DomainEntry } | { remove: string };

/**
 * PUT /surfaces/domains replaces the whole mapping, so the change is applied to the mapping as
 * the server has it now (read again just before: another person or tab may have changed it),
 * never to what this screen loaded a while ago. An added name is the last entry sent.
 */
async function replaceMapping(change: DomainChange, sent: { current: DomainEntry[] }): Promise<Mapped[]> {
  sent.current = [];
  const surfaces = (await ok(api.GET('/surfaces'))).data.surfaces;
  const all: DomainEntry[] = surfaces.flatMap((s) => s.domains.map((d) => ({ host: d.host, appKey: s.appKey, surface: d.surface, instance: d.instance })));
  sent.current = 'add' in change ? [...all, change.add] : all.filter((d) => d.host !== change.remove);
  return (await ok(api.PUT('/surfaces/domains', { body: { domains: sent.current } }))).data.domains;
}

/** Each surface's names as the server answered the whole mapping. */
const mergeDomains = (surfaces: Surface[], after: Mapped[]): Surface[] =>
  surfaces.map((s) => ({
    ...s,
    domains: after.filter((d) => d.appKey === s.appKey && d.surface === s.name).map((d) => ({ host: d.host, surface: d.surface, instance: d.instance })),
  }));

/** Adds or removes one host name; `sent` is the mapping last sent (the server's refusals point into it). */
export function useReplaceMapping(onDone: (change: DomainChange) => void) {
  const sent = useRef<DomainEntry[]>([]);
  const mutation = useSurfacesChange((change: DomainChange) => replaceMapping(change, sent), mergeDomains, onDone);
  return { mutation, sent };
}

export type InstanceEntry = { id: string; name: string; settings?: SettingsInput };
export type InstanceChange = { add: InstanceEntry } | { remove: string } | { edit: string; settings: SettingsInput };
export type InstancesAnswer = { instances: Instance[]; created: Array<{ instance: string; appKeyId: string; keyPrefix: string; secret: string }> };

/**
 * PUT /surfaces/instances replaces the app's whole list, so the change is applied to the list as
 * the server has it now (read again just before), never to what this screen loaded a while ago.
 * The others are sent without settings: a setting left out keeps the instance's value.
 */
async function replaceInstances(appKey: string, change: InstanceChange, sent: { current: InstanceEntry[] }): Promise<InstancesAnswer> {
  sent.current = [];
  const surfaces = (await ok(api.GET('/surfaces'))).data.surfaces;
  const current: InstanceEntry[] = (surfaces.find((s) => s.appKey === appKey)?.instances ?? []).map((i) => ({ id: i.id, name: i.name }));
  if ('add' in change) sent.current = [...current, change.add];
  else if ('remove' in change) sent.current = current.filter((i) => i.id !== change.remove);
  else sent.current = current.map((i) => (i.id === change.edit ? { ...i, settings: change.settings } : i));
  return (await ok(api.PUT('/surfaces/instances', { body: { appKey, instances: sent.current } }))).data;
}

/** The app's venues as the server answered its whole list. */
const mergeInstances =
  (appKey: string) =>
  (surfaces: Surface[], after: InstancesAnswer): Surface[] =>
    surfaces.map((s) => (s.appKey === appKey ? { ...s, instances: after.instances } : s));

/** Adds, edits or removes one venue of an app; `sent` is the list last sent (the server's refusals point into it). */
export function useReplaceInstances(appKey: string, onDone?: (change: InstanceChange, after: InstancesAnswer) => void) {
  const sent = useRef<InstanceEntry[]>([]);
  const mutation = useSurfacesChange((change: InstanceChange) => replaceInstances(appKey, change, sent), mergeInstances(appKey), onDone);
  return { mutation, sent };
}

/**
 * What the frame is answered. A refused call carries the API's envelope as the page would have
 * read it: the HTTP status, the code (the add-on's own for its `ctx.refuse`), the message and the
 * params (ADDON_FAILED's `params.message` is the add-on's error message).
 */
export type Answer = { ok: true; data: unknown } | { ok: false; error: { code: string; message: string; status?: number; params?: Record<string, unknown> } };

/** POST /public/apps/{appKey}/actions/{name} with the session (the action bridge of an app's page), as an answer for the frame. */
export async function callAction(appKey: string, name: string, input: Json): Promise<Answer> {
  try {
    const res = await ok(
      api.POST('/public/apps/{key}/actions/{name}', { params: { path: { key: appKey, name } }, body: { input: input as ActionBody['input'] } }),
    );
    return { ok: true, data: res.data.result };
  } catch (err) {
    if (err instanceof ApiError) return { ok: false, error: { code: err.code, message: err.message, status: err.status, params: err.params } };
    return { ok: false, error: { code: 'BRIDGE_FAILED', message: err instanceof Error ? err.message : String(err) } };
  }
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
