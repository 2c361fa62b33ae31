import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Suspense, useSyncExternalStore } from 'react';
import { Redirect, Route, Switch } from 'wouter';
import { ApiError } from './api/errors';
import { goToSignIn } from './navigation';
import { setSignedOutHandler, useSetupState } from './areas/account/api';
import { AREA_ROUTES } from './areas';
import type { AreaRoute } from './areas/area';
import { lazyScreen, preloadScreen } from './areas/lazy-screen';
import { shellArea } from './shell/area';
import { Layout } from './shell/Layout';
import { ErrorPanel, Loading } from './ui';
import { catalogueVersion, subscribeCatalogue } from './i18n/t';

/**
 * Every screen comes from an area's routes (the shell's home page among them), each its own
 * chunk loaded when first shown; they are sorted here by where they are drawn (AreaRoute.shown).
 */
const ROUTES: readonly AreaRoute[] = [...shellArea.routes, ...AREA_ROUTES];
const SETUP_ROUTES = ROUTES.filter((route) => route.shown === 'setup');
const SIGNED_OUT_ROUTES = ROUTES.filter((route) => route.shown === 'signed-out');
const SIGNED_IN_ROUTES = ROUTES.filter((route) => (route.shown ?? 'signed-in') === 'signed-in');
// Drawn when no route matches: the shell's, not an area's.
const NotFound = lazyScreen(() => import('./shell/Placeholder').then((m) => ({ default: m.NotFound })));

/** Whether a wouter pattern of ours (`/connections/:id/tables/:table`) matches `path`. */
function matches(pattern: string, path: string): boolean {
  const want = pattern.split('/');
  const got = path.replace(/\/+$/, '').split('/');
  if (pattern === '/') return path === '/';
  return want.length === got.length && want.every((part, i) => (part.startsWith(':') ? got[i] !== '' : part === got[i]));
}

// The screen of the address the app opens on starts loading its code now, beside the first data
// request (GET /bootstrap), not after it: the first paint waits for the later of the two.
const opening = typeof location === 'undefined' ? undefined : ROUTES.find((route) => matches(route.path, location.pathname));
if (opening) preloadScreen(opening.component).catch(() => undefined);

const routeElements = (routes: readonly AreaRoute[]) => routes.map((route) => <Route key={route.path} path={route.path} component={route.component} />);

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will not change by asking again; network trouble and 5xx get one more try.
        retry: (failures, error) => failures < 1 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
        staleTime: 30_000,
      },
    },
  });
}

setSignedOutHandler(goToSignIn);

function Routes() {
  const setup = useSetupState();
  if (setup.isPending) return <Loading />;
  if (setup.isError) return <ErrorPanel error={setup.error} onRetry={() => void setup.refetch()} />;
  if (setup.data.open) {
    // Nothing but setting up until there is an administrator: every other address leads there.
    return (
      <Switch>
        {routeElements(SETUP_ROUTES)}
        <Route>
          <Redirect to={SETUP_ROUTES[0]?.path ?? '/'} replace />
        </Route>
      </Switch>
    );
  }
  return (
    <Switch>
      {SETUP_ROUTES.map((route) => (
        <Route key={route.path} path={route.path}>
          <Redirect to="/" replace />
        </Route>
      ))}
      {routeElements(SIGNED_OUT_ROUTES)}
      <Route>
        <Layout>
          <Suspense fallback={<Loading />}>
            <Switch>
              {routeElements(SIGNED_IN_ROUTES)}
              <Route component={NotFound} />
            </Switch>
          </Suspense>
        </Layout>
      </Route>
    </Switch>
  );
}

export function App({ queryClient }: { queryClient: QueryClient }) {
  // Drawn again whenever the catalogue's text moves (another locale, a translation changed: i18n/t.ts).
  useSyncExternalStore(subscribeCatalogue, catalogueVersion);
  return (
    <QueryClientProvider client={queryClient}>
      <Suspense fallback={<Loading />}>
        <Routes />
      </Suspense>
    </QueryClientProvider>
  );
}
