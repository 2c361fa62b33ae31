import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../api/errors';
import { NAV, NAV_AFTER } from '../areas';
import { t, type MessageId } from '../i18n/t';
import { goToSignIn, navigate } from '../navigation';
import { useBootstrap } from '../api/bootstrap';
import { useMe, usePermissions, useRefreshMe, useSignOut } from '../areas/account/api';
import { restartLiveChannel } from '../live/events';
import { ErrorPanel, errorText, Loading } from '../ui';
import { CommandPalette, PaletteButton } from '../palette/CommandPalette';
import { Bell } from './Bell';
import { LiveSync } from './LiveSync';
import { useNavDrawer } from './drawer';
import { rememberVisit } from './recent';
import { RouteRefusal, missingPermission } from './Refusal';
import { applyRememberedLook, useAppliedPrefs } from './prefs';
import './shell.css';

// The look of the last visit at once (no light flash for a dark choice); /me/prefs confirms it.
applyRememberedLook();

/** An entry is current on its own path ("page") and below it ("location": a connection's table is under Connections). */
function NavLink({ path, label }: { path: string; label: MessageId }) {
  const [location] = useLocation();
  const current = location === path ? 'page' : path !== '/' && location.startsWith(`${path}/`) ? 'location' : undefined;
  return (
    <Link href={path} aria-current={current}>
      {t(label)}
    </Link>
  );
}

function UserMenu({ name, email }: { name: string; email: string }) {
  const signOutCall = useSignOut();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [location] = useLocation();
  const menu = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    if (menu.current) menu.current.open = false; // a followed link closes the menu
  }, [location]);
  const signOut = async () => {
    setPending(true);
    setError(null);
    try {
      // A session that already ended is signed out all the same; anything else is said.
      await signOutCall();
    } catch (err) {
      setError(err);
      setPending(false);
      return;
    }
    restartLiveChannel();
    navigate('/sign-in', { replace: true });
  };
  return (
    <details className="user-menu" ref={menu}>
      <summary aria-label={t('user.menu', { name })}>{name}</summary>
      <div className="menu">
        <p>{t('user.signedInAs', { email })}</p>
        <p>
          <Link href="/account/two-factor">{t('security.link')}</Link>
        </p>
        <p>
          <Link href="/account/sessions">{t('sessions.link')}</Link>
        </p>
        <p>
          <Link href="/account/profile">{t('profile.link')}</Link>
        </p>
        <p>
          <Link href="/account/preferences">{t('prefs.link')}</Link>
        </p>
        <p>
          <Link href="/account/notifications">{t('notifications.link')}</Link>
        </p>
        {error !== null && (
          <p className="field-error" role="alert">
            {errorText(error)}
          </p>
        )}
        <button type="button" onClick={() => void signOut()} disabled={pending}>
          {t('user.signOut')}
        </button>
      </div>
    </details>
  );
}

/**
 * The signed-in frame: skip link, header (product, user menu), navigation, main. Every
 * navigation asks the server again who is signed in, so a session ended elsewhere sends the
 * person to sign-in (and back here afterwards) at the next click, not at the next write.
 */
export function Layout({ children }: { children: ReactNode }) {
  const boot = useBootstrap();
  const signedOut = boot.data !== undefined && boot.data.session === null && !boot.isFetching;
  useEffect(() => {
    if (signedOut) goToSignIn('required');
  }, [signedOut]);
  // Drawn once the bootstrap has the session: its hooks below find the user, preferences and
  // count in their caches (seeded), and ask nothing themselves. Signed out: to sign-in.
  if (!boot.data?.session) return <Loading />;
  return <SignedInLayout>{children}</SignedInLayout>;
}

function SignedInLayout({ children }: { children: ReactNode }) {
  const me = useMe();
  const permissions = usePermissions();
  useAppliedPrefs();
  const [location] = useLocation();
  const refreshMe = useRefreshMe();
  const shown = useRef(location);
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    if (shown.current === location) return;
    shown.current = location;
    // A screen reader starts reading the new screen, not the link that was followed.
    main.current?.focus();
    void refreshMe();
  }, [location, refreshMe]);

  const drawer = useNavDrawer();
  const userId = me.data?.id;
  useEffect(() => {
    if (userId) rememberVisit(userId, location);
  }, [userId, location]);
  if (me.isPending) return <Loading />;
  if (me.isError) {
    // A lost session already went to sign-in (api/client); anything else is shown.
    if (me.error instanceof ApiError && me.error.status === 401) return <Loading />;
    return <ErrorPanel error={me.error} onRetry={() => void me.refetch()} />;
  }
  const user = me.data;
  // A screen of an entry the caller's permissions do not cover says so instead of failing on its reads.
  const refused = missingPermission(location, permissions);
  return (
    <div className="layout">
      <a className="skip" href="#main">
        {t('app.skipToContent')}
      </a>
      <header className="top">
        <button
          type="button"
          ref={drawer.button}
          className="menu-button secondary"
          aria-expanded={drawer.open}
          aria-controls="main-nav"
          onClick={drawer.toggle}
        >
          <svg aria-hidden="true" width="18" height="18" viewBox="0 0 18 18" fill="none" stroke="currentColor" strokeWidth="2">
            <path d="M2 4h14M2 9h14M2 14h14" />
          </svg>
          <span className="visually-hidden">{t('nav.menu')}</span>
        </button>
        <Link href="/" className="product">
          {t('app.name')}
        </Link>
        <div className="top-actions">
          <PaletteButton />
          <LiveSync />
          <Bell />
          <UserMenu name={user.name} email={user.email} />
        </div>
      </header>
      {drawer.open && <div className="drawer-backdrop" aria-hidden="true" onClick={drawer.close} />}
      <nav id="main-nav" className={drawer.open ? 'side open' : 'side'} aria-label={t('nav.label')} ref={drawer.drawer} onKeyDown={drawer.onKeyDown}>
        <button type="button" className="drawer-close secondary" onClick={drawer.close}>
          {t('nav.close')}
        </button>
        <ul>
          <li>
            <NavLink path="/" label="nav.home" />
          </li>
          {NAV.filter((entry) => !entry.permission || permissions?.has(entry.permission)).map(({ below: Below, permission: _, ...entry }) => (
            <li key={entry.path}>
              <NavLink {...entry} />
              {Below && <Below />}
            </li>
          ))}
          {NAV_AFTER.map((After, i) => (
            <After key={i} />
          ))}
        </ul>
      </nav>
      <main id="main" ref={main} tabIndex={-1}>
        {refused ? <RouteRefusal permission={refused} /> : children}
      </main>
      <CommandPalette />
    </div>
  );
}
