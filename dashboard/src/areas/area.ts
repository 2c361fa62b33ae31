import type { ComponentType } from 'react';
import type { MessageId } from '../i18n/t';

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
  nav: ReadonlyArray<{ path: string; label: MessageId; below?: ComponentType }>;
  /**
   * Entries the area draws itself after every area's entries, as `<li>` elements: those that
   * come from the server (the apps' pages an operator placed in the navigation).
   */
  navAfter?: ComponentType;
  /**
   * wouter path patterns (`/connections/:id`) and the screen each shows. Components should be
   * `lazy()` so an area's code loads when one of its screens is first shown.
   */
  routes: ReadonlyArray<{ path: string; component: ComponentType }>;
}
