import { Link } from 'wouter';
import { t } from '../i18n/t';
import { useUnreadCount } from '../areas/account/api';

/** The header's bell: a link to the notifications, its name saying how many are unread. */
export function Bell() {
  const unread = useUnreadCount();
  const count = unread.data ?? 0;
  return (
    <Link href="/account/notifications" className="bell" aria-label={t('notifications.bell', { count })}>
      <svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="22" height="22">
        <path
          fill="currentColor"
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
        />
      </svg>
      {count > 0 && (
        <span className="bell-count" aria-hidden="true">
          {count > 99 ? '99+' : count}
        </span>
      )}
    </Link>
  );
}
