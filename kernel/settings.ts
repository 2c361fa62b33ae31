import type { MetaDb } from './meta/types.js';

/** Instance-wide settings as JSON values by key (SMTP, defaults, security, ...). */
export class SettingsStore {
  constructor(
    private readonly db: MetaDb,
    private readonly now: () => number = Date.now,
  ) {}

  async get<T>(key: string): Promise<T | null> {
    const row = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return row ? (JSON.parse(row.value) as T) : null;
  }

  async set(key: string, value: unknown): Promise<void> {
    const json = JSON.stringify(value);
    const now = this.now();
    // Portable upsert: update, and insert when nothing was there.
    const res = await this.db.updateTable('settings').set({ value: json, updated_at: now }).where('key', '=', key).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) {
      try {
        await this.db.insertInto('settings').values({ key, value: json, updated_at: now }).execute();
      } catch {
        await this.db.updateTable('settings').set({ value: json, updated_at: now }).where('key', '=', key).execute();
      }
    }
  }
}
