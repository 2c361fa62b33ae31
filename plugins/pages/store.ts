import { sql } from 'kysely';
import { AppError, defineServiceRef, type ErrorIssue, type Kernel, type MetaDb, MetaReadCache, newId, type Principal } from '../../kernel/api.js';
import { NavStore } from './nav/store.js';
import type {
  MadeRef,
  MadeState,
  NavSurfaceSource,
  NewPage,
  Page,
  PageChanges,
  PageDependent,
  PageKind,
  PagesProvides,
  PageTableReader,
  PersonalLayoutReader,
  PageVisibility,
  SharedView,
  ViewProposal,
  WidgetQueryCheck,
} from './provides.js';
import { TableAccess } from './table-access.js';
import { canSee, DATA_READ } from './visibility.js';
import { pagesDb, type PagesDb, type PagesTables } from './tables.js';
import { SharedViews } from './views/service.js';
import { ViewStore } from './views/store.js';

export const PAGES_CHANGED = 'pages.changed';
export const PAGES_NAV_CHANGED = 'pages.nav.changed';

type Row = PagesTables['pages'];

/** LIKE with '!' as the escape character, which needs no quoting on any of the three dialects. */
const escapeLike = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);
const likePrefix = (prefix: string) => escapeLike(prefix) + '%';

/** JSON from the store; a value written by hand that is not JSON reads as `fallback` rather than failing every list. */
function parsed<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function toPage(row: Row): Page {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    kind: row.kind as PageKind,
    icon: row.icon ?? null,
    connectionId: row.connection_id,
    table: row.table_name,
    config: parsed<Record<string, unknown>>(row.config, {}),
    layout: parsed<Record<string, unknown> | null>(row.layout ?? null, null),
    visibleTo: parsed<PageVisibility | null>(row.visible_to ?? null, null),
    position: Number(row.position),
    generatedKey: row.generated_key,
    createdBy: row.created_by ?? null,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Where a keyset list resumes: after this page in nav order (position, then id). */
export interface PageKey {
  position: number;
  id: string;
}

export interface PageFilter {
  kind?: PageKind;
  connectionId?: string;
  /** Title contains, case-insensitive. */
  q?: string;
}

const slugTaken = (slug: string) =>
  new AppError('CONFLICT', { message: `A page with the slug ${slug} already exists.`, params: { reason: 'slug-taken', slug } });

type PageViewOut = SharedView & { updatedAt: number };

/** The pages table: what generation writes and the pages routes read and edit. */
export class PagesStore implements PagesProvides {
  /** What other plugins keep about pages (PageDependent), in registration order. */
  readonly dependents: PageDependent[] = [];
  /** The widget-data plugin's check of a widget's query; null until it registers. */
  widgetQueryCheck: WidgetQueryCheck | null = null;
  readonly nav: NavStore;
  /** The tables of the connections, as the schema plugin reads them (decisions PG4). */
  readonly tables = new TableAccess();
  readonly views: ViewStore;
  /** Shared views as the routes and other plugins make them (one set of checks). */
  readonly sharedViews: SharedViews;

  private readonly db: PagesDb;
  /** Every page, kept between requests (K30): the navigation, bootstrap and search read it on every call. */
  private readonly allPages: MetaReadCache<Page[]>;

  constructor(
    private readonly meta: MetaDb,
    private readonly now: () => number,
    private readonly events: Pick<Kernel['events'], 'publish' | 'listen'>,
    writes: Kernel['meta']['writes'],
  ) {
    this.db = pagesDb(meta);
    this.allPages = new MetaReadCache(writes, ['pages']);
    // Another replica's page writes announce themselves through the bridge: forget at once, not within the 5 s rule.
    events.listen([PAGES_CHANGED, PAGES_NAV_CHANGED], () => {
      this.allPages.clear();
      this.nav.forget();
    });
    this.nav = new NavStore(this.db, now, () => this.all(), writes);
    this.nav.onChanged = () => this.events.publish(PAGES_NAV_CHANGED, {});
    this.addDependent(this.nav); // a page's nav entry goes with it (decisions PG10)
    this.views = new ViewStore(this.db, now);
    this.sharedViews = new SharedViews((id) => this.find(id), this.tables, this.views);
  }

  checkView(principal: Principal, proposal: ViewProposal): Promise<ErrorIssue[]> {
    return this.sharedViews.check(principal, proposal);
  }

  async createView(principal: Principal, proposal: ViewProposal): Promise<SharedView & { updatedAt: number }> {
    const view = await this.sharedViews.createFor(principal, proposal);
    const page = await this.find(view.pageId);
    if (page) await this.changed(page, false);
    return view as PageViewOut;
  }

  async madeState(made: MadeRef, ownViews: readonly string[] = []): Promise<MadeState> {
    if (made.viewId !== undefined) {
      const view = await this.views.find(made.pageId, made.viewId);
      return !view ? 'gone' : view.updatedAt !== made.updatedAt ? 'changed' : 'unchanged';
    }
    const page = await this.find(made.pageId);
    if (!page) return 'gone';
    if (page.updatedAt !== made.updatedAt) return 'changed';
    if ((await this.views.list(page.id)).some((v) => !ownViews.includes(v.id))) return 'changed';
    return (await this.inUse(page.id)) ? 'in-use' : 'unchanged';
  }

  async removeMade(made: MadeRef, ownViews: readonly string[] = []): Promise<MadeState> {
    const state = await this.madeState(made, ownViews);
    if (state !== 'unchanged') return state;
    const page = await this.find(made.pageId);
    if (!page) return 'gone';
    if (made.viewId !== undefined) {
      if (!(await this.views.remove(made.pageId, made.viewId, made.updatedAt))) return this.madeState(made, ownViews);
      await this.changed(page, false);
      return 'unchanged';
    }
    // Compare-and-delete: the page row goes only while its updatedAt is still the one made.
    const removed = await this.meta.transaction().execute(async (trx) => {
      const row = await pagesDb(trx).selectFrom('pages').select('updated_at').where('id', '=', made.pageId).executeTakeFirst();
      if (!row || Number(row.updated_at) !== made.updatedAt) return false;
      return this.removeWithin(trx, made.pageId);
    });
    if (!removed) return this.madeState(made, ownViews);
    await this.changed(page, true);
    return 'unchanged';
  }

  setTableReader(reader: PageTableReader): void {
    this.tables.set(reader);
  }

  /** The me plugin's reader of saved layouts (ME7); without it no one has a layout of their own. */
  personalLayout: PersonalLayoutReader = async () => null;

  setPersonalLayouts(reader: PersonalLayoutReader): void {
    this.personalLayout = reader;
  }

  /**
   * Tells subscribers the page changed (and the navigation, when `nav`): a table page's change
   * reaches only those its table reaches (decisions PG2).
   */
  async changed(page: Page, nav: boolean): Promise<void> {
    const grant = page.connectionId && page.table ? { permission: DATA_READ, connectionId: page.connectionId, table: page.table } : undefined;
    await this.events.publish(PAGES_CHANGED, { pageId: page.id }, grant ? { grant } : undefined);
    if (nav) await this.events.publish(PAGES_NAV_CHANGED, {});
  }

  /** What keeps the page from being deleted, every dependent's `inUse` merged; null when nothing does. */
  async inUse(pageId: string): Promise<Record<string, string[]> | null> {
    const merged: Record<string, string[]> = {};
    for (const d of this.dependents) {
      for (const [what, ids] of Object.entries((await d.inUse?.(pageId)) ?? {})) if (ids.length) merged[what] = [...(merged[what] ?? []), ...ids];
    }
    return Object.keys(merged).length ? merged : null;
  }

  canSee(principal: Principal, page: Page): boolean {
    return canSee(principal, page);
  }

  async findVisible(principal: Principal, pageId: string): Promise<Page | null> {
    const page = await this.find(pageId);
    return page && canSee(principal, page) ? page : null;
  }

  addDependent(dependent: PageDependent): void {
    this.dependents.push(dependent);
  }

  setWidgetQueryCheck(check: WidgetQueryCheck): void {
    this.widgetQueryCheck = check;
  }

  setNavSurfaces(source: NavSurfaceSource): void {
    this.nav.surfaces = source;
  }

  /** Shared between callers (MetaReadCache): read-only. */
  async all(): Promise<Page[]> {
    return this.allPages.get('all', async () => (await this.db.selectFrom('pages').selectAll().orderBy('position').orderBy('id').execute()).map(toPage));
  }

  async removeConnection(connectionId: string, trx: MetaDb): Promise<number> {
    const ids = (await pagesDb(trx).selectFrom('pages').select('id').where('connection_id', '=', connectionId).execute()).map((r) => r.id);
    for (const id of ids) await this.removeWithin(trx, id);
    return ids.length;
  }

  /** The page, its shared views and what every dependent keeps about it, in `db` (a transaction). */
  private async removeWithin(trx: MetaDb, id: string): Promise<boolean> {
    const db = pagesDb(trx);
    await this.views.removePage(id, db);
    for (const d of this.dependents) await d.removePage?.(id, trx);
    const res = await db.deleteFrom('pages').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async find(id: string): Promise<Page | null> {
    const row = await this.db.selectFrom('pages').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toPage(row) : null;
  }

  /** A page by id, else a generated page by its key (how generation's configs name each other). */
  async findRef(ref: string): Promise<Page | null> {
    return (await this.find(ref)) ?? (await this.findByGeneratedKey(ref));
  }

  async findByGeneratedKey(key: string): Promise<Page | null> {
    const row = await this.db.selectFrom('pages').selectAll().where('generated_key', '=', key).executeTakeFirst();
    return row ? toPage(row) : null;
  }

  /**
   * Pages in nav order after `after`, `batch` at a time, filtered by the store; the caller's
   * visibility is decided by `visible` in Node (roles and grants are not columns), so a batch is
   * read until `limit` visible pages and one more are found or the table ends.
   */
  async list(
    filter: PageFilter,
    limit: number,
    after: PageKey | undefined,
    visible: (page: Page) => boolean,
  ): Promise<{ pages: Page[]; next: PageKey | null }> {
    const batch = Math.max(limit + 1, 100);
    const found: Page[] = [];
    let cursor = after;
    for (;;) {
      let q = this.db.selectFrom('pages').selectAll().orderBy('position').orderBy('id').limit(batch);
      if (filter.kind) q = q.where('kind', '=', filter.kind);
      if (filter.connectionId) q = q.where('connection_id', '=', filter.connectionId);
      if (filter.q) q = q.where(sql<boolean>`lower(title) like ${'%' + escapeLike(filter.q.toLowerCase()) + '%'} escape '!'`);
      if (cursor) {
        const { position, id } = cursor;
        q = q.where((eb) => eb.or([eb('position', '>', position), eb.and([eb('position', '=', position), eb('id', '>', id)])]));
      }
      const rows = await q.execute();
      for (const row of rows) {
        const page = toPage(row);
        if (!visible(page)) continue;
        found.push(page);
        if (found.length > limit) {
          const pages = found.slice(0, limit);
          const last = pages[pages.length - 1]!;
          return { pages, next: { position: last.position, id: last.id } };
        }
      }
      if (rows.length < batch) return { pages: found, next: null };
      const last = toPage(rows[rows.length - 1]!);
      cursor = { position: last.position, id: last.id };
    }
  }

  async freeSlug(base: string): Promise<string> {
    const stem = base.slice(0, 190);
    const taken = new Set(
      (
        await this.db
          .selectFrom('pages')
          .select('slug')
          .where((eb) => eb.or([eb('slug', '=', stem), sql<boolean>`${eb.ref('slug')} like ${likePrefix(stem + '-')} escape '!'`]))
          .execute()
      ).map((r) => r.slug),
    );
    if (!taken.has(stem)) return stem;
    for (let n = 2; ; n++) if (!taken.has(`${stem}-${n}`)) return `${stem}-${n}`;
  }

  private async slugUsed(slug: string, except?: string): Promise<boolean> {
    let q = this.db.selectFrom('pages').select('id').where('slug', '=', slug);
    if (except) q = q.where('id', '<>', except);
    return (await q.executeTakeFirst()) !== undefined;
  }

  private async conflict(input: NewPage): Promise<AppError | null> {
    if (input.generatedKey && (await this.findByGeneratedKey(input.generatedKey)))
      return new AppError('CONFLICT', {
        message: 'A generated page with this key already exists.',
        params: { reason: 'generated-key-taken', generatedKey: input.generatedKey },
      });
    if (await this.slugUsed(input.slug)) return slugTaken(input.slug);
    return null;
  }

  async create(input: NewPage): Promise<Page> {
    const known = await this.conflict(input);
    if (known) throw known;
    const now = this.now();
    let position = input.position;
    if (position === undefined) {
      const last = await this.db
        .selectFrom('pages')
        .select((eb) => eb.fn.max('position').as('p'))
        .executeTakeFirst();
      position = last?.p === null || last?.p === undefined ? 0 : Number(last.p) + 1;
    }
    const row: Row = {
      id: newId(now),
      slug: input.slug,
      title: input.title,
      kind: input.kind,
      connection_id: input.connectionId ?? null,
      table_name: input.table ?? null,
      config: JSON.stringify(input.config ?? {}),
      icon: input.icon ?? null,
      layout: input.layout ? JSON.stringify(input.layout) : null,
      visible_to: input.visibleTo ? JSON.stringify(input.visibleTo) : null,
      created_by: input.createdBy ?? null,
      position,
      generated_key: input.generatedKey ?? null,
      layout_version: typeof input.layout?.version === 'number' ? input.layout.version : 0,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.insertInto('pages').values(row).execute();
    } catch (err) {
      // Lost a race for the slug or the key: answer the conflict, not a 500.
      const raced = await this.conflict(input);
      throw raced ?? err;
    }
    const page = toPage(row);
    await this.changed(page, true);
    return page;
  }

  /** Replaces the page's config (checked by the caller). */
  async setConfig(id: string, config: Record<string, unknown>): Promise<Page | null> {
    await this.db
      .updateTable('pages')
      .set({ config: JSON.stringify(config), updated_at: this.now() })
      .where('id', '=', id)
      .execute();
    return this.find(id);
  }

  /**
   * Replaces a dashboard's shared layout when its stored version is still `version` (compare-and-set
   * in the UPDATE, so of two writers of the same version one wins); the layout is saved with
   * `version + 1`. Null when the version moved on (or the page is gone).
   */
  async setLayout(id: string, widgets: unknown[], version: number): Promise<Page | null> {
    const res = await this.db
      .updateTable('pages')
      .set({ layout: JSON.stringify({ version: version + 1, widgets }), layout_version: version + 1, updated_at: this.now() })
      .where('id', '=', id)
      .where('layout_version', '=', version)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0 ? this.find(id) : null;
  }

  /** Answers the page as it was and as it is; 409 `slug-taken` for another page's slug. The caller has found the page. */
  async update(id: string, changes: PageChanges): Promise<Page | null> {
    if (changes.slug !== undefined && (await this.slugUsed(changes.slug, id))) throw slugTaken(changes.slug);
    const set: Partial<Row> = { updated_at: this.now() };
    if (changes.title !== undefined) set.title = changes.title;
    if (changes.slug !== undefined) set.slug = changes.slug;
    if (changes.icon !== undefined) set.icon = changes.icon;
    if (changes.visibleTo !== undefined) set.visible_to = changes.visibleTo === null ? null : JSON.stringify(changes.visibleTo);
    try {
      await this.db.updateTable('pages').set(set).where('id', '=', id).execute();
    } catch (err) {
      if (changes.slug !== undefined && (await this.slugUsed(changes.slug, id))) throw slugTaken(changes.slug);
      throw err;
    }
    return this.find(id);
  }

  /** Deletes the page with its shared views and what dependents keep about it, in one transaction; answers whether it was there. */
  async remove(id: string): Promise<boolean> {
    return this.meta.transaction().execute((trx) => this.removeWithin(trx, id));
  }
}

/** The plugin's own routes reach the whole store; other plugins see only PagesProvides (pagesRef). */
export const pagesStoreRef = defineServiceRef<PagesStore>('pages');
