import type { MetaDb, Principal } from '../../../kernel/api.js';
import type { NavPlacement, NavSection, Page, PagesNav } from '../provides.js';
import { canSee } from '../visibility.js';

/**
 * The navigation. For now every visible page in one "Pages" section, in position order; the
 * stored sections (`nav_entries`, moved from `addon_placements`) are the rest of issue 28 §1.
 */
export class NavStore implements PagesNav {
  constructor(private readonly pages: () => Promise<Page[]>) {}

  async read(principal: Principal): Promise<{ sections: NavSection[] }> {
    const entries = (await this.pages())
      .filter((p) => canSee(principal, p))
      .map((p) => ({ type: 'page' as const, pageId: p.id, slug: p.slug, title: p.title, icon: p.icon, kind: p.kind }));
    return { sections: entries.length ? [{ id: 'pages', title: 'Pages', entries }] : [] };
  }

  place(_appKey: string, _surface: string, _placement: NavPlacement | null, _trx?: MetaDb): Promise<void> {
    return Promise.reject(new Error('The navigation store is not built yet (issue 28 §1).'));
  }

  placements(_appKey?: string): Promise<Map<string, NavPlacement>> {
    return Promise.reject(new Error('The navigation store is not built yet (issue 28 §1).'));
  }

  removeApp(_appKey: string, _trx: MetaDb): Promise<void> {
    return Promise.reject(new Error('The navigation store is not built yet (issue 28 §1).'));
  }
}
