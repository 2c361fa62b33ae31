import type { MetaDb } from '../../kernel/api.js';
import { meDb, type MeDb } from './tables.js';

export interface SavedLayout {
  pageId: string;
  layout: Record<string, unknown>;
  updatedAt: number;
}

/**
 * A user's own layout of a page (`/me/views/{pageId}/layout`), stored as the JSON given: the
 * dashboard owns the layout's shape. The route admits only a page the caller sees (ME6), and the
 * page's delete removes every user's layout of it (`removePage`, a PageDependent).
 */
export class LayoutService {
  constructor(
    private readonly db: MeDb,
    private readonly now: () => number,
  ) {}

  async put(userId: string, pageId: string, layout: Record<string, unknown>): Promise<SavedLayout> {
    const json = JSON.stringify(layout);
    const updatedAt = this.now();
    const updated = await this.db
      .updateTable('user_layouts')
      .set({ layout: json, updated_at: updatedAt })
      .where('user_id', '=', userId)
      .where('page_id', '=', pageId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      try {
        await this.db.insertInto('user_layouts').values({ user_id: userId, page_id: pageId, layout: json, updated_at: updatedAt }).execute();
      } catch {
        // A simultaneous PUT inserted first; the later write wins as it would have anyway.
        await this.db
          .updateTable('user_layouts')
          .set({ layout: json, updated_at: updatedAt })
          .where('user_id', '=', userId)
          .where('page_id', '=', pageId)
          .execute();
      }
    }
    return { pageId, layout, updatedAt };
  }

  /** The user's saved layout of the page, or null when none is saved (the page shows its shared layout). */
  async get(userId: string, pageId: string): Promise<SavedLayout | null> {
    const row = await this.db
      .selectFrom('user_layouts')
      .select(['layout', 'updated_at'])
      .where('user_id', '=', userId)
      .where('page_id', '=', pageId)
      .executeTakeFirst();
    return row ? { pageId, layout: JSON.parse(row.layout) as Record<string, unknown>, updatedAt: Number(row.updated_at) } : null;
  }

  /** Every user's layout of the page, in `trx` (the page's delete transaction). */
  async removePage(pageId: string, trx: MetaDb): Promise<void> {
    await meDb(trx).deleteFrom('user_layouts').where('page_id', '=', pageId).execute();
  }

  /** Whether there was one; either way the page now shows its shared layout. */
  async remove(userId: string, pageId: string): Promise<boolean> {
    const res = await this.db.deleteFrom('user_layouts').where('user_id', '=', userId).where('page_id', '=', pageId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
