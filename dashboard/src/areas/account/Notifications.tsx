import { Link } from 'wouter';
import type { Schemas } from '../../api/types';
import { useMarkAllRead, useMarkRead, useNotificationList } from './api';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import { kindLabel } from './notifications';
import '../../shell/shell.css';
import { LoadMore } from '../../ui/LoadMore';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { BellIcon, CheckIcon, MarkReadIcon, OpenIcon, SettingsIcon } from '../../ui/icons';

type Notification = Schemas['Notification'];

const PAGE_SIZE = 50;

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function isInternal(link: string): boolean {
  return link.startsWith('/') && !link.startsWith('//');
}

/** /account/notifications: newest first, unread marked, mark one or all as read. */
export function Notifications() {
  useTitle('notifications.title');
  const list = useNotificationList(PAGE_SIZE);
  const markOne = useMarkRead();
  const markAll = useMarkAllRead();

  const crumbs = <Breadcrumbs items={[{ label: t('breadcrumbs.account') }, { label: t('notifications.title') }]} />;
  if (list.isPending)
    return (
      <>
        {crumbs}
        <h1>{t('notifications.title')}</h1>
        <Loading />
      </>
    );
  if (list.isError)
    return (
      <>
        {crumbs}
        <h1>{t('notifications.title')}</h1>
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      </>
    );
  const items = list.data.pages.flatMap((p) => p.notifications);
  const unread = list.data.pages[0]?.unreadCount ?? 0;
  const error = markOne.error ?? markAll.error;

  return (
    <>
      {crumbs}
      <PageHeader
        title={t('notifications.title')}
        description={t('notifications.unreadCount', { count: unread })}
        actions={
          <>
            <Link href="/account/preferences#prefs-notifications" className="button ghost">
              <SettingsIcon className="icon" aria-hidden="true" />
              {t('notifications.prefsLink')}
            </Link>
            <button type="button" disabled={markAll.isPending || unread === 0} onClick={() => markAll.mutate()}>
              <MarkReadIcon className="icon" aria-hidden="true" />
              {t('notifications.markAll')}
            </button>
          </>
        }
      />
      <div className="outcome" aria-live="polite">
        {markAll.isSuccess && (
          <p className="notice" role="status">
            {t('notifications.markedAll', { count: markAll.data })}
          </p>
        )}
      </div>
      {error && (
        <div className="form-error" role="alert">
          <p>{errorText(error)}</p>
        </div>
      )}
      {items.length === 0 ? (
        <EmptyState icon={BellIcon}>{t('notifications.empty')}</EmptyState>
      ) : (
        <ul className="notifications" aria-label={t('notifications.listLabel')}>
          {items.map((n) => (
            <NotificationItem key={n.id} n={n} pending={markOne.isPending && markOne.variables === n.id} onRead={() => markOne.mutate(n.id)} />
          ))}
        </ul>
      )}
      <LoadMore list={list} label={t('notifications.more')} />
    </>
  );
}

function NotificationItem({ n, pending, onRead }: { n: Notification; pending: boolean; onRead: () => void }) {
  const unread = n.readAt === null;
  return (
    <li className={unread ? 'notification unread' : 'notification'} data-testid="notification">
      <p className="notification-title">
        {unread && (
          <>
            <Badge tone="accent">{t('notifications.unread')}</Badge>{' '}
          </>
        )}
        <strong>{n.title}</strong>
      </p>
      {n.body && <p>{n.body}</p>}
      <p className="hint">
        {kindLabel(n.kind)} · <time dateTime={new Date(n.createdAt).toISOString()}>{dateFormat.format(new Date(n.createdAt))}</time>
      </p>
      <div className="actions">
        {n.link && isInternal(n.link) && (
          <Link href={n.link} onClick={() => unread && onRead()} className="button secondary">
            <OpenIcon className="icon" aria-hidden="true" />
            {t('notifications.open')}
          </Link>
        )}
        {unread && (
          <button type="button" className="secondary" disabled={pending} onClick={onRead} aria-label={t('notifications.markReadLabel', { title: n.title })}>
            <CheckIcon className="icon" aria-hidden="true" />
            {t('notifications.markRead')}
          </button>
        )}
      </div>
    </li>
  );
}
