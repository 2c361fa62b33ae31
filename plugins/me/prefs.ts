import { EMPTY_PREFS, PREF_KEYS, prefFields, type PrefKey, type Prefs, type ResolvedPrefs, resolvePrefs } from '../../kernel/api.js';
import type { MeDb } from './tables.js';

export interface PrefsView {
  prefs: Prefs;
  resolved: ResolvedPrefs;
}

/**
 * The user's own preference values (D10), one row per user in `user_prefs`; no row means
 * every field unset. Resolution against the global defaults is the kernel's `resolvePrefs`.
 */
export class PrefsService {
  constructor(
    private readonly db: MeDb,
    private readonly globalDefaults: () => Promise<Prefs>,
    private readonly now: () => number,
  ) {}

  async own(userId: string): Promise<Prefs> {
    const row = await this.db.selectFrom('user_prefs').select(PREF_KEYS).where('user_id', '=', userId).executeTakeFirst();
    const prefs: Record<PrefKey, unknown> = { ...EMPTY_PREFS };
    if (!row) return prefs as Prefs;
    // A value a later release stopped allowing reads as unset rather than breaking the answer.
    for (const key of PREF_KEYS) if (prefFields[key].safeParse(row[key]).success) prefs[key] = row[key];
    return prefs as Prefs;
  }

  async view(userId: string): Promise<PrefsView> {
    const [prefs, global] = await Promise.all([this.own(userId), this.globalDefaults()]);
    return { prefs, resolved: resolvePrefs(prefs, global) };
  }

  /** Absent fields stay as they are; null unsets. Only the sent columns are written, so two tabs patching different fields do not undo each other. */
  async patch(userId: string, patch: Partial<Prefs>): Promise<{ before: Prefs; view: PrefsView }> {
    const before = await this.own(userId);
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<Prefs>;
    if (Object.keys(changes).length > 0) {
      const now = this.now();
      const updated = await this.db
        .updateTable('user_prefs')
        .set({ ...changes, updated_at: now })
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) {
        try {
          await this.db
            .insertInto('user_prefs')
            .values({ user_id: userId, ...EMPTY_PREFS, ...changes, updated_at: now })
            .execute();
        } catch {
          // Another request inserted the row first.
          await this.db
            .updateTable('user_prefs')
            .set({ ...changes, updated_at: now })
            .where('user_id', '=', userId)
            .execute();
        }
      }
    }
    return { before, view: await this.view(userId) };
  }

  /** The locale of the user with this e-mail address (stored in lower case), as saved; null for no user or no locale. */
  async localeOfAddress(email: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('users')
      .leftJoin('user_prefs', 'user_prefs.user_id', 'users.id')
      .select('user_prefs.locale')
      .where('users.email', '=', email.toLowerCase())
      .executeTakeFirst();
    return row?.locale ?? null;
  }
}
