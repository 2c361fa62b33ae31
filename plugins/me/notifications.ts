import { AppError, type MetaDb, type Notification, toNotification } from '../../kernel/api.js';

export interface NotificationPage {
  notifications: Notification[];
  nextCursor: string | null;
  unreadCount: number;
}

export interface NotificationPref {
  kind: string;
  inApp: boolean;
  email: boolean;
}

/** A kind without a stored preference is delivered both ways; the sender decides whether it mails at all. */
export const DEFAULT_NOTIFICATION_PREF = { inApp: true, email: true } as const;

/**
 * The user's own notifications (written by the kernel's NotificationService) and their
 * per-kind preferences in the kernel's `notification_prefs`, which that service honours.
 */
export class MyNotifications {
  constructor(
    private readonly db: MetaDb,
    private readonly now: () => number,
  ) {}

  /** All the user's unread notifications (the bell's badge). */
  async unreadCount(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Newest first; keyset over the time-ordered id on the (user_id, id) index. */
  async list(userId: string, opts: { limit: number; cursor?: string; unread: boolean }): Promise<NotificationPage> {
    let q = this.db.selectFrom('notifications').selectAll().where('user_id', '=', userId);
    if (opts.cursor) q = q.where('id', '<', opts.cursor);
    if (opts.unread) q = q.where('read_at', 'is', null);
    const [rows, unread] = await Promise.all([
      q
        .orderBy('id', 'desc')
        .limit(opts.limit + 1)
        .execute(),
      this.db
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('user_id', '=', userId)
        .where('read_at', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    const page = rows.slice(0, opts.limit);
    return {
      notifications: page.map(toNotification),
      nextCursor: rows.length > opts.limit ? page[page.length - 1]!.id : null,
      unreadCount: Number(unread.n),
    };
  }

  /** Idempotent: a notification read earlier keeps its first read time. Someone else's is not found. */
  async markRead(userId: string, id: string): Promise<Notification> {
    await this.db
      .updateTable('notifications')
      .set({ read_at: this.now() })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .execute();
    const row = await this.db.selectFrom('notifications').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND');
    return toNotification(row);
  }

  /** How many were unread and are now read. */
  async markAllRead(userId: string): Promise<number> {
    const res = await this.db
      .updateTable('notifications')
      .set({ read_at: this.now() })
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** The stored preferences, plus the default for every kind the user has received, by kind. */
  async prefs(userId: string): Promise<NotificationPref[]> {
    const [stored, seen] = await Promise.all([
      this.db.selectFrom('notification_prefs').select(['kind', 'in_app', 'email']).where('user_id', '=', userId).execute(),
      this.db.selectFrom('notifications').select('kind').where('user_id', '=', userId).groupBy('kind').execute(),
    ]);
    const byKind = new Map<string, NotificationPref>(seen.map((r) => [r.kind, { kind: r.kind, ...DEFAULT_NOTIFICATION_PREF }]));
    for (const r of stored) byKind.set(r.kind, { kind: r.kind, inApp: Boolean(r.in_app), email: Boolean(r.email) });
    return [...byKind.values()].sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
  }

  /** Replaces the whole set: a kind left out returns to the default. */
  async setPrefs(userId: string, prefs: NotificationPref[]): Promise<NotificationPref[]> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('notification_prefs').where('user_id', '=', userId).execute();
      if (prefs.length > 0) {
        await trx
          .insertInto('notification_prefs')
          .values(prefs.map((p) => ({ user_id: userId, kind: p.kind, in_app: p.inApp ? 1 : 0, email: p.email ? 1 : 0 })))
          .execute();
      }
    });
    return this.prefs(userId);
  }
}
