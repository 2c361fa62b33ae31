import { messages as addOns } from '../areas/add-ons/messages.en.js';
import { messages as connections } from '../areas/connections/messages.en.js';
import { messages as data } from '../areas/data/messages.en.js';
import { messages as people } from '../areas/people/messages.en.js';
import { messages as publicApi } from '../areas/public-api/messages.en.js';
import { messages as settings } from '../areas/settings/messages.en.js';
import { messages as shell } from '../shell/messages.en.js';
import { messages as transfer } from '../areas/transfer/messages.en.js';

/**
 * Every string a person can see or hear (aria labels included), in ICU message format.
 * English is the source catalogue; the i18n namespace of the API will serve other locales later.
 */
const core = {
  'app.name': 'Admin',
  'app.skipToContent': 'Skip to content',
  'app.loading': 'Loading…',
  'app.documentTitle': '{screen} · Admin',

  'nav.label': 'Main',
  'nav.home': 'Home',
  'nav.connections': 'Connections',
  'nav.publicApi': 'Public API',
  'nav.addons': 'Add-ons',
  'nav.users': 'Users',
  'nav.audit': 'Audit log',
  'nav.settings': 'Settings',
  'nav.comingSoon': '{area} is coming soon.',

  'user.menu': 'Account of {name}',
  'user.signOut': 'Sign out',
  'user.signedInAs': 'Signed in as {email}',

  'error.network': 'The server cannot be reached. Check your connection and try again.',
  'error.unexpected': 'The server answered in an unexpected way (status {status}).',
  'error.title': 'Something went wrong',
  'error.retry': 'Try again',
  'error.formSummary': '{count, plural, one {One field needs attention.} other {# fields need attention.}}',

  'secret.copy': 'Copy to the clipboard',
  'secret.copied': 'Copied to the clipboard.',
  'secret.copyFailed': 'The browser did not allow copying: select it and copy it by hand.',

  'field.email': 'E-mail',
  'field.name': 'Name',
  'field.password': 'Password',
  'field.newPassword': 'New password',
  'field.newPasswordHint': 'At least 8 characters.',
  'field.code': 'Code from your authenticator app',
  'field.recoveryCode': 'Recovery code',

  'setup.title': 'Welcome',
  'setup.intro': 'Create the first administrator. This account can do everything, including inviting others.',
  'setup.submit': 'Create administrator and sign in',
  'setup.submitting': 'Creating…',

  'signIn.title': 'Sign in',
  'signIn.submit': 'Sign in',
  'signIn.submitting': 'Signing in…',
  'signIn.forgot': 'Forgot your password?',
  'signIn.sessionEnded': 'Your session has ended. Sign in again to continue where you were.',
  'signIn.passwordChanged': 'Your password is set. Sign in with it now.',

  'twoFactor.title': 'Two-step verification',
  'twoFactor.intro': 'Enter the 6-digit code your authenticator app shows for this account.',
  'twoFactor.introRecovery': 'Enter one of the recovery codes you saved when you turned on two-step verification. Each works once.',
  'twoFactor.useRecovery': 'Use a recovery code instead',
  'twoFactor.useCode': 'Use a code from the app instead',
  'twoFactor.submit': 'Verify',
  'twoFactor.submitting': 'Verifying…',
  'twoFactor.startOver': 'Start over',

  'forgot.title': 'Reset your password',
  'forgot.intro': 'Enter the e-mail address of your account. We will send you a link to choose a new password.',
  'forgot.submit': 'Send the link',
  'forgot.submitting': 'Sending…',
  'forgot.sent': 'If {email} belongs to an account, a link is on its way. It works once, for 30 minutes.',
  'forgot.back': 'Back to sign-in',

  'reset.title': 'Choose a new password',
  'reset.submit': 'Save the new password',
  'reset.submitting': 'Saving…',
  'reset.missingToken': 'This link is incomplete. Open the link from the e-mail again, or ask for a new one.',
  'reset.askAgain': 'Ask for a new link',

  'invite.title': 'Accept your invitation',
  'invite.intro': 'Choose a password to activate your account.',
  'invite.submit': 'Activate my account',

  'security.title': 'Two-step verification',
  'security.link': 'Two-step verification',
  'security.on': 'Two-step verification is on: signing in asks for a code from your authenticator app.',
  'security.off': 'Two-step verification is off. Turn it on so that a password alone cannot open your account.',
  'security.start': 'Set up two-step verification',
  'security.starting': 'Starting…',
  'security.scan': 'Add this account to your authenticator app: scan the QR code, open the link on the device that has the app, or type the key in.',
  'security.qrLabel': 'QR code of this account for your authenticator app',
  'security.openApp': 'Open in the authenticator app',
  'security.key': 'Key',
  'security.confirm': 'Then enter the 6-digit code the app shows.',
  'security.activate': 'Turn on',
  'security.activating': 'Turning on…',
  'security.codesTitle': 'Your recovery codes',
  'security.codesIntro': 'Save these codes somewhere safe. Each one signs you in once if you lose your authenticator. They are shown only now.',
  'security.done': 'I have saved them',
  'security.disableIntro': 'To turn it off, confirm with your password.',
  'security.disable': 'Turn off',
  'security.disabling': 'Turning off…',

  'home.title': 'Home',
  'home.greeting': 'Hello, {name}.',
  'home.intro': 'This is your administration dashboard. The areas in the menu arrive one by one.',

  'notFound.title': 'Page not found',
  'notFound.body': 'There is nothing at this address.',
  'notFound.home': 'Go to the home page',
  'sessions.title': 'My sessions',
  'sessions.link': 'My sessions',
  'sessions.intro': 'The devices and browsers where you are signed in. Sign out any you do not recognise.',
  'sessions.listLabel': 'Your sessions',
  'sessions.empty': 'There are no live sessions to show.',
  'sessions.current': '(this device)',
  'sessions.unknownDevice': 'Unknown browser',
  'sessions.unknownIp': 'unknown',
  'sessions.ip': 'IP address',
  'sessions.createdAt': 'Signed in',
  'sessions.lastSeenAt': 'Last active',
  'sessions.expiresAt': 'Expires',
  'sessions.endOne': 'Sign out',
  'sessions.endOneLabel': 'Sign out {device}, last active {when}',
  'sessions.endOthers': '{count, plural, one {Sign out the other session} other {Sign out all # other sessions}}',
  'sessions.ending': 'Signing out…',
  'sessions.ended': '{count, plural, one {The session was signed out.} other {# sessions were signed out.}}',
  'sessions.noOthers': 'This device is your only session.',
} as const;

/** One catalogue: the shell's strings and each area's (areas/<name>/messages.en.ts). */
export const messages = { ...core, ...connections, ...data, ...transfer, ...publicApi, ...addOns, ...people, ...settings, ...shell };

export type MessageId = keyof typeof messages;
