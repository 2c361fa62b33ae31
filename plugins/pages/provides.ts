import { defineServiceRef, type MetaDb } from '../../kernel/api.js';

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

/**
 * What the pages plugin provides (`kernel.plugin(pagesRef)` from a plugin that
 * requires 'pages').
 */
export interface PagesProvides {
  /** 409 CONFLICT with `params.reason` 'slug-taken' or 'generated-key-taken' when either is already used. */
  create(input: NewPage): Promise<Page>;
  find(id: string): Promise<Page | null>;
  findByGeneratedKey(key: string): Promise<Page | null>;
  /** `base` when no page uses it, else the first free `base-2`, `base-3`, … */
  freeSlug(base: string): Promise<string>;
  /** Deletes every page bound to the connection, in `trx` (the connection's own removal); answers how many. */
  removeConnection(connectionId: string, trx: MetaDb): Promise<number>;
}

/** `kernel.plugin(pagesRef)` from a plugin that requires 'pages'. */
export const pagesRef = defineServiceRef<PagesProvides>('pages');

export { slugify } from './slug.js';
