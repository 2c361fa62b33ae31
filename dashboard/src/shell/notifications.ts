import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { t, type MessageId } from '../i18n/t';

/** Every notification query starts with this: the live channel and the mark-read calls invalidate it. */
export const NOTIFICATIONS = ['me', 'notifications'] as const;
export const UNREAD = [...NOTIFICATIONS, 'unread'] as const;
/** The kind the kernel publishes to the receiving user (kernel/notifications.ts). */
export const NOTIFICATION_CREATED = 'notification.created';

/** The count of unread notifications (the list endpoint answers it with any page; one row is asked for). */
export function useUnreadCount() {
  return useQuery({
    queryKey: UNREAD,
    queryFn: async () => (await ok(api.GET('/me/notifications', { params: { query: { limit: 1, unread: 'true' } } }))).data.unreadCount,
  });
}

const KNOWN_KINDS: Record<string, MessageId> = { 'users.roles-changed': 'notifications.kind.users.roles-changed' };

/** The label of a notification kind: ours when the catalogue knows it, else the kind as the server names it. */
export function kindLabel(kind: string): string {
  const id = KNOWN_KINDS[kind];
  return id ? t(id) : kind;
}
