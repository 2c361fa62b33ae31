import { type Kernel, type MetaDb, MetaReadCache, type Principal } from '../../../kernel/api.js';
import type { NavEntry, NavItem, NavPlacement, NavSection, NavSurface, NavSurfaceSource, Page, PageDependent, PagesNav } from '../provides.js';
import { pagesDb, type PagesDb, type PagesTables } from '../tables.js';
import { canSee } from '../visibility.js';
import { appKeyOf, PAGES_SECTION, pageKey, titleOf } from './keys.js';

type SectionRow = PagesTables['nav_sections'];
type EntryRow = PagesTables['nav_entries'];

export const PAGES_ADMIN = 'pages.admin';

/** The navigation as stored: sections in order, each with its entries in order. */
export interface StoredNav {
  sections: Array<{ id: string; title: string; entries: NavEntry[] }>;
}

const byPosition =
  <T extends { position: number | string }>(key: (r: T) => string) =>
  (a: T, b: T) =>
    Number(a.position) - Number(b.position) || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

const entryOf = (row: EntryRow): NavEntry => (row.page_id !== null ? { pageId: row.page_id } : { appKey: row.app_key!, surface: row.surface! });

/** At most this many rows in one INSERT (parameters stay far below every dialect's limit). */
const CHUNK = 200;

/**
 * The one navigation (issue 28 §1, decisions PG10): stored sections of pages and apps'
 * dashboard pages, and a last "Pages" section of the pages placed in none.
 */
export class NavStore implements PagesNav, PageDependent {
  /** The add-ons plugin's list of apps' dashboard pages; null until it registers (no app entries then). */
  surfaces: NavSurfaceSource | null = null;
  /** Called after a change this store committed itself (the plugin publishes pages.nav.changed). */
  onChanged: () => Promise<void> = async () => {};

  constructor(
    private readonly db: PagesDb,
    private readonly now: () => number,
    private readonly pages: () => Promise<Page[]>,
    writes: Kernel['meta']['writes'],
  ) {
    this.cached = new MetaReadCache(writes, ['nav_sections', 'nav_entries']);
  }

  /** The stored rows, kept between requests (K30): every bootstrap reads the navigation. */
  private readonly cached: MetaReadCache<{ sections: SectionRow[]; entries: EntryRow[] }>;

  /** Forgets the stored rows (another replica changed the navigation). */
  forget(): void {
    this.cached.clear();
  }

  private async rows(db: PagesDb = this.db): Promise<{ sections: SectionRow[]; entries: EntryRow[] }> {
    return db === this.db ? this.cached.get('rows', () => this.readRows(db)) : this.readRows(db);
  }

  private async readRows(db: PagesDb): Promise<{ sections: SectionRow[]; entries: EntryRow[] }> {
    const [sections, entries] = await Promise.all([db.selectFrom('nav_sections').selectAll().execute(), db.selectFrom('nav_entries').selectAll().execute()]);
    sections.sort(byPosition((r) => r.id));
    entries.sort(byPosition((r) => r.entry_key));
    return { sections, entries };
  }

  /** What is stored, entries of removed pages and apps included (the audit's before and after). */
  async stored(db: PagesDb = this.db): Promise<StoredNav> {
    const { sections, entries } = await this.rows(db);
    return {
      sections: sections.map((s) => ({ id: s.id, title: s.title, entries: entries.filter((e) => e.section_id === s.id).map(entryOf) })),
    };
  }

  /** Apps' dashboard pages (all installed for null), keyed `<appKey>/<surface>`. */
  async appSurfaces(principal: Principal | null): Promise<Map<string, NavSurface>> {
    const list = this.surfaces ? await this.surfaces(principal) : [];
    return new Map(list.map((s) => [`${s.appKey}/${s.surface}`, s]));
  }

  async read(principal: Principal): Promise<{ sections: NavSection[] }> {
    const admin = principal.permissions.has(PAGES_ADMIN);
    // A page's screen reads it with pages.read: without it the navigation offers none (issue 29).
    const readsPages = principal.permissions.has('pages.read');
    const [{ sections, entries }, pages, apps] = await Promise.all([this.rows(), this.pages(), this.appSurfaces(principal)]);
    const byId = new Map(pages.map((p) => [p.id, p]));
    const known = new Set(sections.map((s) => s.id));
    const placed = new Set<string>();
    const items = new Map<string, NavItem[]>(sections.map((s) => [s.id, []]));
    for (const e of entries) {
      if (!known.has(e.section_id)) continue;
      if (e.page_id !== null) {
        const page = byId.get(e.page_id);
        if (!page) continue;
        placed.add(page.id);
        if (readsPages && canSee(principal, page)) items.get(e.section_id)!.push(pageItem(page));
      } else {
        const app = apps.get(`${e.app_key}/${e.surface}`);
        if (app && (app.enabled || admin)) items.get(e.section_id)!.push({ type: 'app', appKey: app.appKey, surface: app.surface, title: app.title });
      }
    }
    const rest = pages.filter((p) => readsPages && !placed.has(p.id) && canSee(principal, p)).map(pageItem);
    const out: NavSection[] = sections.map((s) => ({ id: s.id, title: s.title, entries: items.get(s.id)! }));
    const last = out.find((s) => s.id === PAGES_SECTION);
    if (last) last.entries.push(...rest);
    else if (rest.length) out.push({ id: PAGES_SECTION, title: 'Pages', entries: rest });
    // Those who arrange the navigation see its empty sections too, so a round trip keeps them.
    return { sections: admin ? out : out.filter((s) => s.entries.length > 0) };
  }

  async hasSection(id: string): Promise<boolean> {
    return (await this.db.selectFrom('nav_sections').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  }

  /** Puts a page at the end of a stored section (POST /pages with `section`). */
  async append(pageId: string, sectionId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const top = await trx
        .selectFrom('nav_entries')
        .select((eb) => eb.fn.max('position').as('p'))
        .where('section_id', '=', sectionId)
        .executeTakeFirst();
      await trx.deleteFrom('nav_entries').where('entry_key', '=', pageKey(pageId)).execute();
      await trx
        .insertInto('nav_entries')
        .values({
          entry_key: pageKey(pageId),
          section_id: sectionId,
          position: top?.p === null || top?.p === undefined ? 0 : Number(top.p) + 1,
          page_id: pageId,
          app_key: null,
          surface: null,
          updated_at: this.now(),
        })
        .execute();
    });
  }

  /**
   * Replaces the whole navigation (PUT /pages/nav-order; the caller has checked it) in one
   * transaction, and numbers the pages' positions in its order so GET /pages lists them so.
   */
  async replace(nav: StoredNav): Promise<void> {
    const now = this.now();
    await retried(() =>
      this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('nav_entries').execute();
        await trx.deleteFrom('nav_sections').execute();
        const sections = nav.sections.map((s, i) => ({ id: s.id, title: s.title, position: i, updated_at: now }));
        if (sections.length) await trx.insertInto('nav_sections').values(sections).execute();
        const entries: EntryRow[] = nav.sections.flatMap((s) =>
          s.entries.map((e, j) =>
            'pageId' in e
              ? { entry_key: pageKey(e.pageId), section_id: s.id, position: j, page_id: e.pageId, app_key: null, surface: null, updated_at: now }
              : {
                  entry_key: appKeyOf(e.appKey, e.surface),
                  section_id: s.id,
                  position: j,
                  page_id: null,
                  app_key: e.appKey,
                  surface: e.surface,
                  updated_at: now,
                },
          ),
        );
        for (let i = 0; i < entries.length; i += CHUNK)
          await trx
            .insertInto('nav_entries')
            .values(entries.slice(i, i + CHUNK))
            .execute();
        // GET /pages answers in navigation order: placed pages first, in the order given, then the rest as they were.
        const order = nav.sections.flatMap((s) => s.entries.flatMap((e) => ('pageId' in e ? [e.pageId] : [])));
        const current = await trx.selectFrom('pages').select(['id', 'position']).orderBy('position').orderBy('id').execute();
        const first = new Set(order);
        const ids = [...order, ...current.map((p) => p.id).filter((id) => !first.has(id))];
        const was = new Map(current.map((p) => [p.id, Number(p.position)]));
        for (const [i, id] of ids.entries())
          if (was.has(id) && was.get(id) !== i) await trx.updateTable('pages').set({ position: i }).where('id', '=', id).execute();
      }),
    );
  }

  async place(appKey: string, surface: string, placement: NavPlacement | null, trx?: MetaDb): Promise<void> {
    const run = async (db: PagesDb) => {
      const key = appKeyOf(appKey, surface);
      await db.deleteFrom('nav_entries').where('entry_key', '=', key).execute();
      if (!placement) return;
      const section = await db.selectFrom('nav_sections').select('id').where('id', '=', placement.section).executeTakeFirst();
      if (!section) {
        const top = await db
          .selectFrom('nav_sections')
          .select((eb) => eb.fn.max('position').as('p'))
          .executeTakeFirst();
        await db
          .insertInto('nav_sections')
          .values({
            id: placement.section,
            title: titleOf(placement.section),
            position: top?.p === null || top?.p === undefined ? 0 : Number(top.p) + 1,
            updated_at: this.now(),
          })
          .execute();
      }
      await db
        .insertInto('nav_entries')
        .values({ entry_key: key, section_id: placement.section, position: placement.order, page_id: null, app_key: appKey, surface, updated_at: this.now() })
        .execute();
    };
    if (trx) return run(pagesDb(trx));
    await retried(() => this.db.transaction().execute((t) => run(t)));
    await this.onChanged();
  }

  async placements(appKey?: string): Promise<Map<string, NavPlacement>> {
    let q = this.db.selectFrom('nav_entries').select(['app_key', 'surface', 'section_id', 'position']).where('app_key', 'is not', null);
    if (appKey) q = q.where('app_key', '=', appKey);
    const rows = await q.execute();
    return new Map(rows.map((r) => [`${r.app_key}/${r.surface}`, { section: r.section_id, order: Number(r.position) }]));
  }

  async removeApp(appKey: string, trx: MetaDb): Promise<void> {
    await pagesDb(trx).deleteFrom('nav_entries').where('app_key', '=', appKey).execute();
  }

  /** The entries of a connection's pages, in the connection's removal (before its pages go). */
  async removeConnection(connectionId: string, trx: MetaDb): Promise<void> {
    const db = pagesDb(trx);
    const ids = (await db.selectFrom('pages').select('id').where('connection_id', '=', connectionId).execute()).map((r) => pageKey(r.id));
    for (let i = 0; i < ids.length; i += CHUNK)
      await db
        .deleteFrom('nav_entries')
        .where('entry_key', 'in', ids.slice(i, i + CHUNK))
        .execute();
  }

  /** A page's entry goes in the page's own delete transaction (a PageDependent of the pages store). */
  async removePage(pageId: string, trx: MetaDb): Promise<void> {
    await pagesDb(trx).deleteFrom('nav_entries').where('entry_key', '=', pageKey(pageId)).execute();
  }
}

/**
 * A write that replaces what it touches, run again when it loses a race (two arrangements at
 * once, two placements making the same section: a key violation on the second): the second run
 * sees the first one's rows and writes over them.
 */
async function retried(write: () => Promise<void>, attempts = 3): Promise<void> {
  for (let n = 1; ; n++) {
    try {
      return await write();
    } catch (err) {
      if (n >= attempts) throw err;
    }
  }
}

function pageItem(p: Page): NavItem {
  return { type: 'page', pageId: p.id, slug: p.slug, title: p.title, icon: p.icon, kind: p.kind };
}
