import type { QueryKey } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { loadNamespace, type MessageId, type Namespace } from '../i18n/t';
import { lazyScreen } from './lazy-screen';

/**
 * The query keys one event kind makes stale: a fixed list, or one read from the event's data
 * (a `schema.changed` names its connection, so only that connection's keys go stale). Each key is
 * a prefix: every query whose key starts with it is refreshed.
 */
export type LiveKeys = readonly QueryKey[] | ((data: unknown) => readonly QueryKey[]);

/**
 * One part of the dashboard (DESIGN §8): its routes and its entries in the main navigation.
 * Each area lives in `areas/<name>/` (screens, `messages.en.ts`, styles) and is listed once in
 * `areas/index.ts`; the shell knows areas only through this shape.
 */
export interface Area {
  /**
   * Entries of the main navigation, in order; `below` is drawn under the entry (the
   * connections and their tables under Connections). It is in the first load of the app, so
   * it stays small.
   */
  nav: ReadonlyArray<{
    path: string;
    label: MessageId;
    below?: ComponentType;
    /** Shown only to callers holding it (GET /auth/session's `permissions`); the server still decides. */
    permission?: string;
  }>;
  /**
   * Entries the area draws itself after every area's entries, as `<li>` elements: those that
   * come from the server (the apps' pages an operator placed in the navigation).
   */
  navAfter?: ComponentType;
  /**
   * The area's screens: App.tsx mounts every area's routes, in order (the first pattern that
   * matches wins). Components should come from the area's `lazyWithMessages` so an area's code
   * and strings load when one of its screens is first shown.
   */
  routes: readonly AreaRoute[];
  /**
   * Which realtime event kinds (D14; the kinds the server declares) make which of the area's
   * query keys stale. The shell's live channel (`shell/LiveSync.tsx`) subscribes to every kind
   * some area names and invalidates the keys: a change made in another tab or by another client
   * shows on an open screen without a reload. The keys come from the area's `api.ts` factory, so
   * the declaration and the queries cannot drift apart. `test/dashboard-live.test.ts` fails when
   * a kind the server declares is refreshed by no area (or an area names a kind that does not exist).
   */
  live?: Readonly<Record<string, LiveKeys>>;
}

/** One screen of an area at a wouter path pattern (`/connections/:id`). */
export interface AreaRoute {
  path: string;
  /** Takes no props: a screen needing some is a small wrapper (`ResetPassword` is `SetPassword purpose="reset"`). */
  component: ComponentType;
  /**
   * Where the screen is drawn. `signed-in` (the default): inside the Layout, for a signed-in
   * person. `signed-out`: on its own, reachable without a session (sign-in, a reset link).
   * `setup`: the only screen while the instance has no administrator yet (every address leads
   * there, and it leads home once the instance is set up).
   */
  shown?: 'signed-in' | 'signed-out' | 'setup';
}

/**
 * `lazyScreen` (like React's `lazy()`, without suspending) for an area's screens, which also loads the area's strings: the screen's chunk
 * and the namespace's strings (i18n/<locale>/<namespace>.json) are fetched together, and the strings are in the catalogue
 * (i18n/t.ts) before the screen first renders. So no area's strings are in the first load,
 * while `t(id)` stays checked against every id (i18n/message-ids.ts, generated from i18n/en).
 * An area.ts calls it once, `const lazy = lazyWithMessages('<namespace>')`,
 * and declares its screens with that `lazy` as it would with React's.
 */
export function lazyWithMessages(namespace: Namespace) {
  let loaded: Promise<void> | undefined;
  const messagesLoaded = () =>
    (loaded ??= loadNamespace(namespace).catch((error: unknown) => {
      loaded = undefined; // the next screen of the area asks again
      throw error;
    }));
  return <T extends ComponentType<any>>(load: () => Promise<{ default: T }>): T =>
    lazyScreen(() => Promise.all([load(), messagesLoaded()]).then(([screen]) => screen));
}

/**
 * What a screen adds to one of its area's mutations (the hooks of an area's `api.ts`); each hook
 * says whether these run before or after its cache work. They are kept on the mutation, so they
 * run even when the screen that asked has been replaced meanwhile (an editor shown again with
 * the saved version), unlike the callbacks given to `mutate()`.
 */
export interface After<TData, TVars> {
  onMutate?: (vars: TVars) => void;
  onSuccess?: (data: TData, vars: TVars) => unknown;
  onError?: (error: Error, vars: TVars) => unknown;
}
