import { useEffect, useRef, type ReactNode } from 'react';
import { lazyScreen } from '../areas/lazy-screen';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../api/errors';
import { NAV, NAV_AFTER } from '../areas';
import { t, type MessageId } from '../i18n/t';
import { goToSignIn } from '../navigation';
import { useBootstrap, useBranding } from '../api/bootstrap';
import { useMe, usePermissions, usePrefs, useRefreshMe } from '../areas/account/api';
import { ErrorPanel, Loading } from '../ui';
import { CommandPalette, PaletteButton } from '../palette/CommandPalette';
import {
  AddOnsIcon,
  ApiKeysIcon,
  AskIcon,
  AuditIcon,
  CloseIcon,
  ConnectionsIcon,
  HomeIcon,
  JobsIcon,
  MenuIcon,
  PagesIcon,
  PublicApiIcon,
  ReportsIcon,
  RolesIcon,
  SettingsIcon,
  TableIcon,
  UsersIcon,
  type IconType,
} from '../ui/icons';
import { LiveSync } from './LiveSync';
import { useNavDrawer } from './drawer';
import { rememberVisit } from './recent';
import { RouteRefusal, missingPermission } from './Refusal';
import { applyRememberedLook, useAppliedPrefs } from './prefs';
import { ProductMark, productName, useBrandAccent } from './branding';
import './shell.css';

// The look of the last visit at once (no light flash for a dark choice); /me/prefs confirms it.
applyRememberedLook();

/** An entry is current on its own path ("page") and below it ("location": a connection's table is under Connections). */
function NavLink({ path, label }: { path: string; label: MessageId }) {
  const [location] = useLocation();
  const current = location === path ? 'page' : path !== '/' && location.startsWith(`${path}/`) ? 'location' : undefined;
  const Icon = NAV_ICONS[path] ?? TableIcon;
  return (
    <Link href={path} aria-current={current}>
      <Icon className="icon" aria-hidden="true" />
      {t(label)}
    </Link>
  );
}

/** Each entry's picture, by its path (an entry an area adds without one here gets the table's). */
const NAV_ICONS: Record<string, IconType> = {
  '/': HomeIcon,
  '/connections': ConnectionsIcon,
  '/public-api': PublicApiIcon,
  '/add-ons': AddOnsIcon,
  '/reports': ReportsIcon,
  '/pages': PagesIcon,
  '/jobs': JobsIcon,
  '/users': UsersIcon,
  '/roles': RolesIcon,
  '/api-keys': ApiKeysIcon,
  '/audit': AuditIcon,
  '/settings': SettingsIcon,
  '/ask': AskIcon,
};

// The account menu, the bell and the toasts come in their own chunk (the Radix code): the first
// load, which the sign-in screen pays for, carries none of it. A box of their size holds the place.
// Not React's lazy(): its Suspense would hold the menus back 300 ms after their code is there.
const TopMenus = lazyScreen(
  () => import('./TopMenus').then((m) => ({ default: m.TopMenus })),
  () => <span className="top-menus-pending" />,
);

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
  const branding = useBranding();
  // The brand's colour is the accent unless the person chose one of their own (BR11).
  useBrandAccent(usePrefs().data?.prefs.accent != null);
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
          className="menu-button ghost icon-button"
          aria-expanded={drawer.open}
          aria-controls="main-nav"
          onClick={drawer.toggle}
        >
          <MenuIcon className="icon" aria-hidden="true" />
          <span className="visually-hidden">{t('nav.menu')}</span>
        </button>
        <Link href="/" className="product">
          <ProductMark branding={branding} />
          <span className="product-name">{productName(branding)}</span>
        </Link>
        <div className="top-actions">
          <PaletteButton />
          <LiveSync />
          <TopMenus name={user.name} email={user.email} />
        </div>
      </header>
      {drawer.open && <div className="drawer-backdrop" aria-hidden="true" onClick={drawer.close} />}
      <nav id="main-nav" className={drawer.open ? 'side open' : 'side'} aria-label={t('nav.label')} ref={drawer.drawer} onKeyDown={drawer.onKeyDown}>
        <button type="button" className="drawer-close ghost" onClick={drawer.close}>
          <CloseIcon className="icon" aria-hidden="true" />
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
