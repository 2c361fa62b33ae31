import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { ApiError } from './api/errors';
import { goToSignIn } from './navigation';
import { setSignedOutHandler, useSetupState } from './areas/account/api';
import { AREA_ROUTES } from './areas';
import { Layout } from './shell/Layout';
import { SHELL_ROUTES } from './shell/routes';
import { ErrorPanel, Loading } from './ui';

// Each screen is its own chunk, loaded when first shown.
const Setup = lazy(() => import('./screens/Setup').then((m) => ({ default: m.Setup })));
const SignIn = lazy(() => import('./screens/SignIn').then((m) => ({ default: m.SignIn })));
const ForgotPassword = lazy(() => import('./screens/ForgotPassword').then((m) => ({ default: m.ForgotPassword })));
const SetPassword = lazy(() => import('./screens/SetPassword').then((m) => ({ default: m.SetPassword })));
const TwoFactor = lazy(() => import('./screens/TwoFactor').then((m) => ({ default: m.TwoFactor })));
const Sessions = lazy(() => import('./screens/Sessions').then((m) => ({ default: m.Sessions })));
const Home = lazy(() => import('./screens/Home').then((m) => ({ default: m.Home })));
const NotFound = lazy(() => import('./screens/Placeholder').then((m) => ({ default: m.NotFound })));

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
  const [location] = useLocation();
  if (setup.isPending) return <Loading />;
  if (setup.isError) return <ErrorPanel error={setup.error} onRetry={() => void setup.refetch()} />;
  if (setup.data.open) return location === '/setup' ? <Setup /> : <Redirect to="/setup" replace />;
  return (
    <Switch>
      <Route path="/setup">
        <Redirect to="/" replace />
      </Route>
      <Route path="/sign-in" component={SignIn} />
      <Route path="/forgot-password" component={ForgotPassword} />
      <Route path="/reset-password">
        <SetPassword purpose="reset" />
      </Route>
      <Route path="/accept-invite">
        <SetPassword purpose="invite" />
      </Route>
      <Route>
        <Layout>
          <Suspense fallback={<Loading />}>
            <Switch>
              <Route path="/" component={Home} />
              <Route path="/account/two-factor" component={TwoFactor} />
              <Route path="/account/sessions" component={Sessions} />
              {[...SHELL_ROUTES, ...AREA_ROUTES].map((route) => (
                <Route key={route.path} path={route.path} component={route.component} />
              ))}
              <Route component={NotFound} />
            </Switch>
          </Suspense>
        </Layout>
      </Route>
    </Switch>
  );
}

export function App({ queryClient }: { queryClient: QueryClient }) {
  return (
    <QueryClientProvider client={queryClient}>
      <Suspense fallback={<Loading />}>
        <Routes />
      </Suspense>
    </QueryClientProvider>
  );
}
