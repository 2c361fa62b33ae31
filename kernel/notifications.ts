import { z } from 'zod';
import type { EventBus } from './events/bus.js';
import { newId } from './ids.js';
import type { MetaDb } from './meta/types.js';

export const notificationSchema = z
  .strictObject({
    id: z.string(),
    kind: z.string(),
    title: z.string(),
    body: z.string().nullable(),
    link: z.string().nullable(),
    createdAt: z.number(),
    readAt: z.number().nullable(),
  })
  .meta({ id: 'Notification' });
export type Notification = z.infer<typeof notificationSchema>;

export const NOTIFICATION_CREATED = 'notification.created';

export interface NewNotification {
  kind: string;
  title: string;
  body?: string | null;
  link?: string | null;
}

/**
 * Other plugins notify a user through this service: it honours the user's notification
 * preferences, stores the notification and pushes it on the event bus to that user only.
 */
export class NotificationService {
  constructor(
    private readonly db: MetaDb,
    private readonly bus: EventBus,
    private readonly now: () => number = Date.now,
  ) {}

  /** Null when the user turned this kind off. */
  async notify(userId: string, input: NewNotification): Promise<Notification | null> {
    const pref = await this.db
      .selectFrom('notification_prefs')
      .select('in_app')
      .where('user_id', '=', userId)
      .where('kind', '=', input.kind)
      .executeTakeFirst();
    if (pref && !pref.in_app) return null;
    const now = this.now();
    const row = {
      id: newId(now),
      user_id: userId,
      kind: input.kind,
      title: input.title,
      body: input.body ?? null,
      link: input.link ?? null,
      created_at: now,
      read_at: null,
    };
    await this.db.insertInto('notifications').values(row).execute();
    const notification = toNotification(row);
    await this.bus.publish(NOTIFICATION_CREATED, notification, { userIds: [userId] });
    return notification;
  }
}

export function toNotification(row: {
  id: string;
  kind: string;
  title: string;
  body: string | null;
  link: string | null;
  created_at: number;
  read_at: number | null;
}): Notification {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    link: row.link,
    createdAt: Number(row.created_at),
    readAt: row.read_at === null ? null : Number(row.read_at),
  };
}
