import { useState } from 'react';
import { Link } from 'wouter';
import { useLatestNotifications, useSignOut, useUnreadCount } from '../areas/account/api';
import { t, type MessageId } from '../i18n/t';
import { restartLiveChannel } from '../live/events';
import { navigate } from '../navigation';
import { errorText } from '../ui';
import {
  BellIcon,
  ChevronDownIcon,
  NotificationsIcon,
  PreferencesIcon,
  ProfileIcon,
  SecurityIcon,
  SessionsIcon,
  SignOutIcon,
  type IconType,
} from '../ui/icons';
import { Menu, MenuItem, MenuLabel, MenuLink, MenuSeparator } from '../ui/Menu';
import { Popover, PopoverClose } from '../ui/Popover';
import { Toaster } from '../ui/Toaster';
import { toast } from '../ui/toast-store';

/*
 * The header's account menu and bell, and the toasts' region: loaded with the signed-in shell,
 * apart from the first load (Layout.tsx), so the sign-in screen does not carry the Radix code.
 */

function initials(name: string): string {
  const parts = name.trim().split(/\s+/);
  return ((parts[0]?.[0] ?? '') + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '')).toUpperCase() || '?';
}

/** The account's screens, in the menu's order. */
const ACCOUNT_LINKS: ReadonlyArray<{ href: string; icon: IconType; label: MessageId }> = [
  { href: '/account/profile', icon: ProfileIcon, label: 'profile.link' },
  { href: '/account/two-factor', icon: SecurityIcon, label: 'security.link' },
  { href: '/account/sessions', icon: SessionsIcon, label: 'sessions.link' },
  { href: '/account/preferences', icon: PreferencesIcon, label: 'prefs.link' },
  { href: '/account/notifications', icon: NotificationsIcon, label: 'notifications.link' },
];

/** The account menu: who is signed in, the account's screens, signing out. */
export function UserMenu({ name, email }: { name: string; email: string }) {
  const signOutCall = useSignOut();
  const [pending, setPending] = useState(false);
  const signOut = async () => {
    setPending(true);
    try {
      // A session that already ended is signed out all the same; anything else is said.
      await signOutCall();
    } catch (err) {
      // The menu closed with the click: the failure is said where it stays in view.
      toast({ title: t('user.signOutFailed'), description: errorText(err), tone: 'danger' });
      setPending(false);
      return;
    }
    restartLiveChannel();
    navigate('/sign-in', { replace: true });
  };
  return (
    <Menu
      className="user-menu ghost"
      label={t('user.menu', { name })}
      trigger={
        <>
          {/* The initials drawn by CSS: the button's words stay the name alone (axe's label-content-name-mismatch). */}
          <span className="avatar" aria-hidden="true" data-initials={initials(name)} />
          <span className="user-menu-name">{name}</span>
          <ChevronDownIcon className="icon" aria-hidden="true" />
        </>
      }
    >
      <MenuLabel>{t('user.signedInAs', { email })}</MenuLabel>
      <MenuSeparator />
      {ACCOUNT_LINKS.map(({ href, icon: Icon, label }) => (
        <MenuLink key={href}>
          <Link href={href}>
            <Icon className="icon" aria-hidden="true" />
            {t(label)}
          </Link>
        </MenuLink>
      ))}
      <MenuSeparator />
      <MenuItem disabled={pending} onSelect={() => void signOut()}>
        <SignOutIcon className="icon icon-directional" aria-hidden="true" />
        {t('user.signOut')}
      </MenuItem>
    </Menu>
  );
}

const LATEST = 5;
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const isInternal = (link: string) => link.startsWith('/') && !link.startsWith('//');

/** The latest few notifications, asked when the bell opens (under the notifications' key: the live channel refreshes it). */
function LatestNotifications() {
  const latest = useLatestNotifications(LATEST);
  if (latest.isPending) return <p className="hint">{t('app.loading')}</p>;
  if (latest.isError) return <p className="field-error">{errorText(latest.error)}</p>;
  if (latest.data.length === 0)
    return (
      <div className="bell-empty">
        <BellIcon className="icon" aria-hidden="true" />
        <p>{t('notifications.none')}</p>
      </div>
    );
  return (
    <ul className="bell-list">
      {latest.data.map((n) => (
        <li key={n.id} className={n.readAt === null ? 'unread' : undefined}>
          <span className="bell-item-title">{n.title}</span>
          <time className="hint" dateTime={new Date(n.createdAt).toISOString()}>
            {timeFormat.format(new Date(n.createdAt))}
          </time>
          {n.link && isInternal(n.link) && (
            <PopoverClose asChild>
              <Link href={n.link} className="bell-item-link">
                {t('notifications.openLabel', { title: n.title })}
              </Link>
            </PopoverClose>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The header's bell: its name says how many are unread; it opens the latest notifications. */
export function Bell() {
  const unread = useUnreadCount();
  const count = unread.data ?? 0;
  const [open, setOpen] = useState(false);
  return (
    <Popover
      open={open}
      onOpenChange={setOpen}
      label={t('notifications.bell', { count })}
      triggerClassName="bell ghost icon-button"
      className="bell-popover"
      trigger={
        <>
          <BellIcon className="icon" aria-hidden="true" />
          {count > 0 && (
            <span className="bell-count" aria-hidden="true">
              {count > 99 ? '99+' : count}
            </span>
          )}
        </>
      }
    >
      <div className="bell-head">
        <h2>{t('notifications.link')}</h2>
        <span className="hint">{t('notifications.unreadShort', { count })}</span>
      </div>
      {open && <LatestNotifications />}
      <PopoverClose asChild>
        <Link href="/account/notifications" className="bell-all">
          {t('notifications.seeAll')}
        </Link>
      </PopoverClose>
    </Popover>
  );
}

/** Everything of this chunk the header draws, in its order. */
export function TopMenus({ name, email }: { name: string; email: string }) {
  return (
    <>
      <Bell />
      <UserMenu name={name} email={email} />
      <Toaster />
    </>
  );
}
