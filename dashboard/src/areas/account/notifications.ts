import { accountKeys } from './api';
import { t, type MessageId } from '../../i18n/t';

/** Every notification query starts with this: the live channel (LiveSync) invalidates it. */
export const NOTIFICATIONS = accountKeys.notifications;
/** The kind the kernel publishes to the receiving user (kernel/notifications.ts). */
export const NOTIFICATION_CREATED = 'notification.created';

const KNOWN_KINDS: Record<string, MessageId> = { 'users.roles-changed': 'notifications.kind.users.roles-changed' };

/** The label of a notification kind: ours when the catalogue knows it, else the kind as the server names it. */
export function kindLabel(kind: string): string {
  const id = KNOWN_KINDS[kind];
  return id ? t(id) : kind;
}
