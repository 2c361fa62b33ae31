import { lazyWithMessages, type Area } from '../area';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages('account');

const Setup = lazy(() => import('./Setup').then((m) => ({ default: m.Setup })));
const SignIn = lazy(() => import('./SignIn').then((m) => ({ default: m.SignIn })));
const ForgotPassword = lazy(() => import('./ForgotPassword').then((m) => ({ default: m.ForgotPassword })));
const ResetPassword = lazy(() => import('./SetPassword').then((m) => ({ default: m.ResetPassword })));
const AcceptInvite = lazy(() => import('./SetPassword').then((m) => ({ default: m.AcceptInvite })));
const TwoFactor = lazy(() => import('./TwoFactor').then((m) => ({ default: m.TwoFactor })));
const Sessions = lazy(() => import('./Sessions').then((m) => ({ default: m.Sessions })));
const Profile = lazy(() => import('./Profile').then((m) => ({ default: m.Profile })));
const Preferences = lazy(() => import('./Preferences').then((m) => ({ default: m.Preferences })));
const Notifications = lazy(() => import('./Notifications').then((m) => ({ default: m.Notifications })));

/**
 * The signed-in person's own account: setting up the instance, signing in and setting a password
 * (shown without a session), and under /account two-step verification, sessions, profile,
 * preferences and notifications. It has no entry in the main navigation: the user menu and the
 * bell (shell/Layout.tsx) link to its screens.
 */
export const accountArea: Area = {
  nav: [],
  routes: [
    { path: '/setup', component: Setup, shown: 'setup' },
    { path: '/sign-in', component: SignIn, shown: 'signed-out' },
    { path: '/forgot-password', component: ForgotPassword, shown: 'signed-out' },
    { path: '/reset-password', component: ResetPassword, shown: 'signed-out' },
    { path: '/accept-invite', component: AcceptInvite, shown: 'signed-out' },
    { path: '/account/two-factor', component: TwoFactor },
    { path: '/account/sessions', component: Sessions },
    { path: '/account/profile', component: Profile },
    { path: '/account/preferences', component: Preferences },
    { path: '/account/notifications', component: Notifications },
  ],
};
