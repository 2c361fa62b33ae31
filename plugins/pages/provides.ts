import { defineServiceRef, type ErrorIssue, type MetaDb, type Principal } from '../../kernel/api.js';
import type { EffectiveTable } from '../schema/provides.js';

/** What a page shows; the pages issue adds more kinds (and the routes to edit pages). */
export type PageKind = 'list' | 'detail' | 'dashboard' | 'form' | 'custom';
export const PAGE_KINDS: readonly PageKind[] = ['list', 'detail', 'dashboard', 'form', 'custom'];

/** Who may see a page besides its table's rule: null is anyone with pages.read (decisions PG2). */
export interface PageVisibility {
  roles: string[];
}

export interface Page {
  id: string;
  /** Unique across the instance; the page's address in the dashboard. */
  slug: string;
  title: string;
  kind: PageKind;
  /** An icon name the dashboard knows (≤ 64 characters); null for the kind's own. */
  icon: string | null;
  connectionId: string | null;
  /** The table's ref (see the schema plugin), for pages about one table. */
  table: string | null;
  /** Kind-specific settings, owned by whoever renders the kind. */
  config: Record<string, unknown>;
  /** A dashboard's shared layout; null until one is saved. */
  layout: Record<string, unknown> | null;
  visibleTo: PageVisibility | null;
  /** Order in the navigation, ascending. */
  position: number;
  /** Set on pages made by generation, one per connection, table and kind; null on pages made by hand. */
  generatedKey: string | null;
  /** The user who made it by hand; null for generated pages and API keys. */
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewPage {
  slug: string;
  title: string;
  kind: PageKind;
  connectionId?: string | null;
  table?: string | null;
  config?: Record<string, unknown>;
  icon?: string | null;
  layout?: Record<string, unknown> | null;
  visibleTo?: PageVisibility | null;
  /** Defaults to after every existing page. */
  position?: number;
  generatedKey?: string | null;
  createdBy?: string | null;
}

/** What PATCH /pages/{pageId} may change. */
export interface PageChanges {
  title?: string;
  slug?: string;
  icon?: string | null;
  visibleTo?: PageVisibility | null;
}

/** One entry of the navigation as stored: a page, or an installed app's `dashboard-page` surface. */
export type NavEntry = { pageId: string } | { appKey: string; surface: string };

/** One entry as the caller reads it: a page entry carries what the navigation shows of the page. */
export type NavItem =
  | { type: 'page'; pageId: string; slug: string; title: string; icon: string | null; kind: PageKind }
  | { type: 'app'; appKey: string; surface: string; title: string };

export interface NavSection {
  /** kebab, 1–40 */
  id: string;
  title: string;
  entries: NavItem[];
}

/** Where an app's surface sits: a section id and its order there (decisions AO14's placement). */
export interface NavPlacement {
  section: string;
  order: number;
}

/** The one navigation (issue 28 §1): pages and apps' dashboard pages in sections. */
export interface PagesNav {
  /**
   * The sections the caller sees, entries in order: pages the caller may not see are left out, and
   * pages in no section come last in a section titled "Pages".
   */
  read(principal: Principal): Promise<{ sections: NavSection[] }>;
  /** Places an app's surface (null: takes it out), in `trx` when given. */
  place(appKey: string, surface: string, placement: NavPlacement | null, trx?: MetaDb): Promise<void>;
  /** Where each surface of the app (all apps without `appKey`) is placed, keyed `<appKey>/<surface>`. */
  placements(appKey?: string): Promise<Map<string, NavPlacement>>;
  /** Removes every entry of the app, in the app's own removal transaction. */
  removeApp(appKey: string, trx: MetaDb): Promise<void>;
}

/** An installed app's dashboard-page surface, as the add-ons plugin tells the navigation. */
export interface NavSurface {
  appKey: string;
  surface: string;
  title: string;
  /** A disabled app's page is listed only to those who arrange the navigation (pages.admin). */
  enabled: boolean;
}

/**
 * The installed apps' dashboard-page surfaces (all of them for `null`; for a principal, none
 * when it may not use apps). Registered by the add-ons plugin, which requires pages.
 */
export type NavSurfaceSource = (principal: Principal | null) => Promise<NavSurface[]>;

/** Something another plugin keeps about a page (a report using it, a user's saved layout of it). */
export interface PageDependent {
  /**
   * What keeps the page from being deleted, as PAGE_IN_USE's params (e.g. `{reports: [ids]}`);
   * null or an empty object when nothing does.
   */
  inUse?(pageId: string): Promise<Record<string, string[]> | null>;
  /** Removes what belongs to the page, in the page's own delete transaction. */
  removePage?(pageId: string, trx: MetaDb): Promise<void>;
}

/**
 * Checks a dashboard widget's query for the caller (what `POST /widget-data/query` checks);
 * answers issues with paths under `path` (e.g. `body.widgets.0.query`), empty when it holds.
 */
export type WidgetQueryCheck = (principal: Principal, query: unknown, path: string) => Promise<ErrorIssue[]>;

/**
 * A table of a connection's current effective schema, by its ref: null when the connection has no
 * such table; throws 404 NOT_FOUND for an unknown connection (decisions PG4). The schema plugin
 * registers it (it requires pages, so pages cannot require it).
 */
export type PageTableReader = (connectionId: string, ref: string) => Promise<EffectiveTable | null>;

/** A shared view of a table page (decisions PG7): a named grid query, what GET /data/{conn}/{table} takes. */
export interface SharedView {
  id: string;
  pageId: string;
  name: string;
  /** `{sort?, search?, filters?: [{column, op, value}], columns?, columnWidths?}` (the grid's URL, DB23). */
  query: Record<string, unknown>;
  isDefault: boolean;
}

/** Reading a page's shared views (another plugin's report of a view, decisions RP3). */
export interface PageViews {
  /** The view of that page, or null. */
  find(pageId: string, viewId: string): Promise<SharedView | null>;
  /** The page's default view, or null when it has none. */
  defaultOf(pageId: string): Promise<SharedView | null>;
}

/** A shared view another plugin proposes (the LLM assist's create-view), checked as POST /pages/{pageId}/views checks it. */
export interface ViewProposal {
  pageId: string;
  name: string;
  /** What the route's `query` takes; checked here (it comes from outside). */
  query: unknown;
}

/** A page or a shared view another plugin made (create, createView), as it was made: its updatedAt then. */
export interface MadeRef {
  pageId: string;
  /** Set for a shared view; absent for the page itself. */
  viewId?: string;
  updatedAt: number;
}

/**
 * What became of something made: `changed` when its updatedAt moved since (for a page, also when it
 * has a shared view not among those the maker made), `in-use` when a dependent keeps the page
 * (PAGE_IN_USE), `gone` when it was deleted already.
 */
export type MadeState = 'unchanged' | 'changed' | 'in-use' | 'gone';

/** A user's own saved layout of a page (PUT /me/views/{pageId}/layout), or null when they saved none. */
export type PersonalLayoutReader = (userId: string, pageId: string) => Promise<{ layout: Record<string, unknown>; updatedAt: number } | null>;

/**
 * What the pages plugin provides (`kernel.plugin(pagesRef)` from a plugin that
 * requires 'pages').
 */
export interface PagesProvides {
  /**
   * 409 CONFLICT with `params.reason` 'slug-taken' or 'generated-key-taken' when either is already used.
   * Publishes `pages.changed` and `pages.nav.changed` as a page made through the routes does (generation's pages too).
   */
  create(input: NewPage): Promise<Page>;
  find(id: string): Promise<Page | null>;
  findByGeneratedKey(key: string): Promise<Page | null>;
  /** Every page, in nav order (search's index; a few thousand at most). */
  all(): Promise<Page[]>;
  /** `base` when no page uses it, else the first free `base-2`, `base-3`, … */
  freeSlug(base: string): Promise<string>;
  /**
   * Deletes every page bound to the connection, in `trx` (the connection's own removal), with their
   * shared views and what every dependent keeps about them (`removePage`); answers how many pages.
   */
  removeConnection(connectionId: string, trx: MetaDb): Promise<number>;
  /** The page rule (decisions PG2): may this caller list and open this page. */
  canSee(principal: Principal, page: Page): boolean;
  /** The page when it exists and the caller may see it, else null (answer 404 either way). */
  findVisible(principal: Principal, pageId: string): Promise<Page | null>;
  /** Registers what another plugin keeps about pages, consulted and cleaned on every page delete. */
  addDependent(dependent: PageDependent): void;
  /** Set once by the widget-data plugin; until then a layout's queries are checked by shape only. */
  setWidgetQueryCheck(check: WidgetQueryCheck): void;
  /** Set once by the add-ons plugin; until then the navigation lists no app entries and refuses them (`unknown-surface`). */
  setNavSurfaces(source: NavSurfaceSource): void;
  /** Set once by the schema plugin: how pages read a table's effective columns (decisions PG4). */
  setTableReader(reader: PageTableReader): void;
  /** Set once by the me plugin: the caller's own saved layout of a page, for GET /pages/{pageId}'s `myLayout` (ME7). */
  setPersonalLayouts(reader: PersonalLayoutReader): void;
  /**
   * Everything POST /pages/{pageId}/views would refuse for this caller, nothing written: pages.write,
   * a table page the caller sees, the query against its table as the caller reads it, the name free
   * and the page's limit. Issues with paths `pageId`, `name`, `query…`; empty when it could be made.
   */
  checkView(principal: Principal, proposal: ViewProposal): Promise<ErrorIssue[]>;
  /**
   * Makes a shared view (not the default) with the route's checks and refusals (403, 404,
   * 400 VALIDATION_FAILED, 409 `name-taken`); publishes `pages.changed`. The audit entry is the caller's.
   */
  createView(principal: Principal, proposal: ViewProposal): Promise<SharedView & { updatedAt: number }>;
  /** What became of a page or view made by the caller's plugin; `ownViews`: the page's views it also made (they do not count as changes). */
  madeState(made: MadeRef, ownViews?: readonly string[]): Promise<MadeState>;
  /**
   * Deletes it (a page with its views and what dependents keep, as DELETE does) only while
   * madeState says `unchanged`; answers the state it found (`unchanged`: removed). Publishes as the routes do.
   */
  removeMade(made: MadeRef, ownViews?: readonly string[]): Promise<MadeState>;
  nav: PagesNav;
  /** The pages' shared views, read only (their routes write them; other plugins through createView). */
  views: PageViews;
}

/** `kernel.plugin(pagesRef)` from a plugin that requires 'pages'. */
export const pagesRef = defineServiceRef<PagesProvides>('pages');

export { slugify } from './slug.js';
export { navSchema } from './nav/schema.js';
