import type { Kernel } from '../../kernel/api.js';
import { addonsRef } from '../add-ons/provides.js';
import { connectionsRef, type SourceDialect } from '../connections/provides.js';
import { pagesRef, type Page } from '../pages/provides.js';
import { rolesRef } from '../roles/provides.js';
import { schemaRef } from '../schema/provides.js';
import { usersRef } from '../users/provides.js';
import { NameIndex, type NameEntry, type NameHit } from './names.js';
import { SETTING_SCREENS, type SettingEntry } from './settings-screens.js';

export const NAME_TYPES = ['page', 'table', 'connection', 'user', 'role', 'addon', 'setting'] as const;
export type NameType = (typeof NAME_TYPES)[number];

export interface PageEntry extends NameEntry {
  page: Page;
}
export interface TableEntry extends NameEntry {
  connectionId: string;
  ref: string;
}
export interface EntryOf {
  page: PageEntry;
  table: TableEntry;
  connection: NameEntry;
  user: NameEntry;
  role: NameEntry;
  addon: NameEntry;
  setting: SettingEntry;
}

/** Another replica's users, roles and add-ons are seen within this (their stamps are read at most this often; the K25/PA3 rule). */
export const STAMP_EVERY_MS = 5_000;

const DIALECT_LABEL: Record<SourceDialect, string> = { postgres: 'PostgreSQL', mysql: 'MySQL / MariaDB', sqlite: 'SQLite' };
const KIND_LABEL: Record<Page['kind'], string> = { list: 'List page', detail: 'Detail page', dashboard: 'Dashboard', form: 'Form page', custom: 'Page' };

const enc = encodeURIComponent;

/** Everything: the index listens to every event it needs, whatever the event's audience. */

interface Source<E extends NameEntry> {
  load(): Promise<E[]>;
  /** For what no event reaches other replicas with: polled at most every STAMP_EVERY_MS. */
  stamp?(): Promise<string>;
}

/**
 * One type's names, loaded whole on first use and again after something changed it. `invalidate`
 * (an event, or a write of this process) makes the next search wait for a reload, so this process
 * never answers from names older than its own writes; a changed stamp (another replica's write)
 * reloads in the background while searches go on with the names at hand.
 */
class Part<E extends NameEntry> {
  readonly names = new NameIndex<E>();
  private generation = 0;
  private loaded = -1;
  private loading: Promise<void> | null = null;
  private stampValue: string | null = null;
  private stampAt = 0;
  private stamping = false;

  constructor(
    private readonly source: Source<E>,
    private readonly now: () => number,
    private readonly onError: (err: unknown) => void,
  ) {}

  invalidate(): void {
    this.generation++;
  }

  async fresh(): Promise<NameIndex<E>> {
    while (this.loaded !== this.generation) await (this.loading ??= this.load());
    this.pollStamp();
    return this.names;
  }

  private load(): Promise<void> {
    const generation = this.generation;
    // eslint-disable-next-line prefer-const
    let loading: Promise<void> | undefined;
    loading = (async () => {
      try {
        const [list, stamp] = await Promise.all([this.source.load(), this.source.stamp?.() ?? null]);
        this.names.reset(list);
        this.stampValue = stamp;
        this.stampAt = this.now();
        // A change seen while loading leaves it stale: the next search loads again.
        if (this.loaded < generation) this.loaded = generation;
      } finally {
        if (this.loading === loading) this.loading = null;
      }
    })();
    return loading!;
  }

  private pollStamp(): void {
    if (!this.source.stamp || this.stamping || this.loading || this.now() - this.stampAt < STAMP_EVERY_MS) return;
    this.stamping = true;
    void this.source
      .stamp()
      .then((stamp) => {
        this.stampAt = this.now();
        if (stamp !== this.stampValue && !this.loading) this.loading = this.load();
        return this.loading;
      })
      .catch(this.onError)
      .finally(() => (this.stamping = false));
  }
}

/**
 * The names search finds (decisions SR1–SR3): one NameIndex per type, in this process's memory,
 * built on first use and kept fresh by the events the owners publish (`pages.changed`,
 * `connections.changed`, `schema.changed`, carried between replicas by the kernel's bridge), this
 * process's own meta-store writes, and, for users, roles and add-ons (which publish no event),
 * their owners' stamps.
 */
export class SearchIndex {
  private readonly parts: { [T in NameType]: Part<EntryOf[T]> };
  private listening = false;

  constructor(private readonly kernel: Kernel) {
    const now = () => kernel.now();
    const onError = (err: unknown) => kernel.log.warn({ err: { message: (err as Error).message } }, 'search: names not reloaded');
    const part = <E extends NameEntry>(source: Source<E>) => new Part<E>(source, now, onError);
    this.parts = {
      page: part({ load: () => this.loadPages() }),
      table: part({ load: () => this.loadTables() }),
      connection: part({ load: () => this.loadConnections() }),
      user: part({
        load: async () =>
          (await kernel.plugin(usersRef).names()).map((u) => ({ id: u.id, title: u.name, subtitle: u.email, url: `/users/${enc(u.id)}`, words: u.status })),
        stamp: () => kernel.plugin(usersRef).stamp(),
      }),
      role: part({
        load: async () =>
          (await kernel.plugin(rolesRef).names()).map((r) => ({
            id: r.id,
            title: r.name,
            subtitle: r.description ?? '',
            url: `/roles/${enc(r.id)}`,
            words: r.id,
          })),
        stamp: () => kernel.plugin(rolesRef).stamp(),
      }),
      addon: part({
        load: async () =>
          (await kernel.plugin(addonsRef).names()).map((a) => ({
            id: a.key,
            title: a.name,
            subtitle: a.description.slice(0, 200),
            url: `/add-ons/${enc(a.key)}`,
            words: a.key,
          })),
        stamp: () => kernel.plugin(addonsRef).stamp(),
      }),
      setting: part({ load: async () => SETTING_SCREENS }),
    };
  }

  /** The fresh names of a type (listening from the first call on). */
  async of<T extends NameType>(type: T): Promise<NameIndex<EntryOf[T]>> {
    this.listen();
    return (this.parts[type] as Part<EntryOf[T]>).fresh();
  }

  /** Best first, at most `limit`, only what `visible` admits. */
  async search<T extends NameType>(type: T, q: string, limit: number, visible: (e: EntryOf[T]) => boolean): Promise<NameHit<EntryOf[T]>[]> {
    return (await this.of(type)).search(q, limit, visible);
  }

  /** The pages search may read rows through: those whose config says `searchable: true`. */
  async searchablePages(): Promise<Page[]> {
    const pages = await this.of('page');
    const out: Page[] = [];
    for (const e of pages.all()) if (e.page.config.searchable === true && e.page.connectionId && e.page.table) out.push(e.page);
    return out;
  }

  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    const { page, table, connection, user, role, addon } = this.parts;
    // Other replicas' changes arrive as events through the bridge; this process's own arrive as
    // events too, and as meta-store writes (generation writes pages without an event).
    this.kernel.events.listen(['pages.changed', 'pages.nav.changed', 'connections.changed', 'schema.changed'], (event) => {
      switch (event.kind) {
        case 'pages.changed':
        case 'pages.nav.changed':
          page.invalidate();
          break;
        case 'connections.changed':
          connection.invalidate();
          table.invalidate();
          // A deleted connection takes its pages with it, without a pages event.
          if ((event.data as { change?: string }).change === 'deleted') page.invalidate();
          break;
        case 'schema.changed':
          table.invalidate();
          break;
      }
    });
    this.kernel.meta.writes.on((w) => {
      switch (w.table) {
        case 'pages':
          page.invalidate();
          break;
        case 'connections':
          connection.invalidate();
          table.invalidate();
          break;
        case 'schema_heads':
        case 'schema_overrides':
          table.invalidate();
          break;
        case 'users':
          // Signing in writes last_login_at: no name changes with it.
          if (w.op !== 'update' || w.columns.length === 0 || w.columns.some((c) => c === 'name' || c === 'email' || c === 'status')) user.invalidate();
          break;
        case 'roles':
          role.invalidate();
          break;
        case 'addons':
          addon.invalidate();
          break;
      }
    });
  }

  private async loadPages(): Promise<PageEntry[]> {
    return (await this.kernel.plugin(pagesRef).all()).map((p) => ({
      id: p.id,
      title: p.title,
      subtitle: p.table ? `${KIND_LABEL[p.kind]} · ${p.table}` : KIND_LABEL[p.kind],
      url: `/p/${enc(p.slug)}`,
      words: p.slug,
      page: p,
    }));
  }

  private async loadConnections(): Promise<NameEntry[]> {
    return (await this.kernel.plugin(connectionsRef).list()).map((c) => ({
      id: c.id,
      title: c.name,
      subtitle: DIALECT_LABEL[c.dialect],
      url: `/connections/${enc(c.id)}`,
    }));
  }

  private async loadTables(): Promise<TableEntry[]> {
    const schema = this.kernel.plugin(schemaRef);
    const out: TableEntry[] = [];
    for (const c of await this.kernel.plugin(connectionsRef).list()) {
      // A connection not introspected yet has no tables to find.
      const effective = await schema.effective(c.id).catch(() => null);
      for (const t of effective?.model.tables ?? []) {
        out.push({
          id: `${c.id}/${t.ref}`,
          title: t.display.label,
          subtitle: `${c.name} · ${t.ref}`,
          url: `/connections/${enc(c.id)}/tables/${enc(t.ref)}`,
          words: t.ref,
          connectionId: c.id,
          ref: t.ref,
        });
      }
    }
    return out;
  }
}
