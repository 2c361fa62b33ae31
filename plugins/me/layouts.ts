import type { MeDb } from './tables.js';

export interface SavedLayout {
  pageId: string;
  layout: Record<string, unknown>;
  updatedAt: number;
}

/**
 * A user's own layout of a page (`/me/views/{pageId}/layout`), stored as the JSON given: pages
 * do not exist yet, and the dashboard owns the layout's shape.
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

  /** Whether there was one; either way the page now shows its shared layout. */
  async remove(userId: string, pageId: string): Promise<boolean> {
    const res = await this.db.deleteFrom('user_layouts').where('user_id', '=', userId).where('page_id', '=', pageId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
