import { connectionsRef } from '../connections/provides.js';
import { SqliteWorker } from '../../engine/sources/sqlite-off-thread.js';
import { defineServiceRef, type Kernel, type Principal } from '../../kernel/api.js';
import { pagesRef } from '../pages/provides.js';
import type { NameEntry, NameHit } from './names.js';
import { DATA_READ, rowTargets, searchRows } from './rows.js';
import { SearchIndex, type EntryOf, type NameType, type PageEntry } from './search-index.js';

export const SEARCH_TYPES = ['page', 'table', 'connection', 'user', 'role', 'addon', 'setting', 'row'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export interface SearchItem {
  id: string;
  title: string;
  subtitle: string;
  url: string;
  score: number;
}

export interface SearchAnswer {
  q: string;
  groups: Array<{ type: SearchType; items: SearchItem[] }>;
  partial: boolean;
}

const itemOf = (hit: NameHit<NameEntry>): SearchItem => ({
  id: hit.entry.id,
  title: hit.entry.title,
  subtitle: hit.entry.subtitle,
  url: hit.entry.url,
  score: hit.score,
});

/** `GET /search` behind the route: the names index and the rows of searchable pages' tables. */
export class SearchService {
  readonly index: SearchIndex;

  /** Row search on SQLite connections, off the API's thread; started on first use. */
  private sqlite: SqliteWorker | null = null;

  constructor(private readonly kernel: Kernel) {
    this.index = new SearchIndex(kernel);
  }

  private sqliteThread(): SqliteWorker {
    return (this.sqlite ??= new SqliteWorker({ timedOut: () => new Error('search: the table ran out of time'), name: 'search SQLite' }));
  }

  async close(): Promise<void> {
    await this.sqlite?.close();
    this.sqlite = null;
  }

  /**
   * Who may see what of each type (decisions SR3); null: the caller sees none of that type, and it
   * is not searched at all.
   */
  private visibility(principal: Principal): { [T in NameType]: ((e: EntryOf[T]) => boolean) | null } {
    const p = principal.permissions;
    const pages = this.kernel.plugin(pagesRef);
    const all = () => true;
    return {
      page: p.has('pages.read') ? (e) => pages.canSee(principal, e.page) : null,
      table: p.has(DATA_READ) ? (e) => p.grantOn(DATA_READ, e.connectionId, e.ref) !== null : null,
      connection: p.has('connections.read') ? all : null,
      user: p.has('users.read') ? all : null,
      role: p.has('roles.read') ? all : null,
      addon: p.has('add-ons.read') ? all : null,
      setting: (e) => (e.permission === null ? principal.kind === 'session' : p.has(e.permission)),
    };
  }

  async search(principal: Principal, q: string, types: readonly SearchType[], limit: number): Promise<SearchAnswer> {
    const visible = this.visibility(principal);
    const names = types.filter((t): t is NameType => t !== 'row');
    const named = Promise.all(
      names.map(async (type) => {
        const rule = visible[type] as ((e: NameEntry) => boolean) | null;
        if (!rule) return { type, items: [] };
        const hits = await this.index.search(type, q, limit, rule as never);
        return { type, items: hits.map(itemOf) };
      }),
    );
    const rows = types.includes('row') ? this.rows(principal, q, limit, visible.page) : Promise.resolve({ items: [], partial: false });
    const [groups, found] = await Promise.all([named, rows]);
    const out: SearchAnswer['groups'] = [];
    for (const type of types) {
      const items = type === 'row' ? found.items : (groups.find((g) => g.type === type)?.items ?? []);
      if (items.length > 0) out.push({ type, items });
    }
    return { q, groups: out, partial: found.partial };
  }

  /** Rows through the searchable pages the caller sees (decisions SR5). */
  private async rows(principal: Principal, q: string, limit: number, seesPage: ((e: PageEntry) => boolean) | null) {
    if (!seesPage || !principal.permissions.has(DATA_READ)) return { items: [], partial: false };
    const pages = await this.index.searchablePages();
    const targets = await rowTargets(this.kernel, principal, pages, (page) => seesPage({ page } as PageEntry));
    // A table's 300 ms are for its statements, not for starting the SQLite thread they run in.
    const connections = this.kernel.plugin(connectionsRef);
    const dialects = await Promise.all(
      [...new Set(targets.map((t) => t.connectionId))].map(async (id) => (await connections.info(id).catch(() => null))?.dialect),
    );
    if (dialects.includes('sqlite')) await this.sqliteThread().ready();
    return searchRows(this.kernel, targets, q, Math.min(limit, 5), () => this.sqliteThread());
  }
}

/** The search plugin's own service, for its routes. */
export const searchServiceRef = defineServiceRef<SearchService>('search');
