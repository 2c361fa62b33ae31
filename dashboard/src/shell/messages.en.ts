/**
 * The shell's strings, ICU message format: everything the first load of the app can show (the
 * frame, the navigation, the user menu, errors and loading, the field labels several areas
 * share, home and "not found"). They are in the catalogue from the start (i18n/t.ts); an area's
 * own strings load with its screens.
 */
export const messages = {
  'app.name': 'Admin',
  'app.skipToContent': 'Skip to content',
  'app.loading': 'Loading…',
  'app.documentTitle': '{screen} · Admin',

  'nav.label': 'Main',
  'nav.home': 'Home',
  'nav.connections': 'Connections',
  'nav.publicApi': 'Public API',
  'nav.addons': 'Add-ons',
  'nav.pages': 'Pages',
  'nav.pagesEditor': 'Manage pages',
  'nav.reports': 'Scheduled reports',
  'nav.users': 'Users',
  'nav.audit': 'Audit log',
  'nav.settings': 'Settings',
  'nav.comingSoon': '{area} is coming soon.',

  // Areas' strings drawn by the navigation (their ids keep the area's name).
  'connections.nav.more': 'All connections…',
  'connections.nav.open': 'Open the connection',
  'transfer.nav.jobs': 'Jobs',
  'people.nav.roles': 'Roles',
  'people.nav.apiKeys': 'API keys',

  'user.menu': 'Account of {name}',
  'user.signOut': 'Sign out',
  'user.signedInAs': 'Signed in as {email}',
  // The user menu's links to the account's screens, and the header's bell.
  'security.link': 'Two-step verification',
  'sessions.link': 'My sessions',
  'profile.link': 'Profile',
  'prefs.link': 'Preferences',
  'notifications.link': 'Notifications',
  'notifications.bell': '{count, plural, =0 {Notifications, none unread} one {Notifications, # unread} other {Notifications, # unread}}',
  'notifications.arrived': 'New notification: {title}',

  // The look's settings and their values (shell/prefs.ts), offered by the account's preferences and the instance's defaults.
  'prefs.theme': 'Theme',
  'prefs.themeSystem': 'Same as the system',
  'prefs.themeLight': 'Light',
  'prefs.themeDark': 'Dark',
  'prefs.accent': 'Accent colour',
  'prefs.accentIndigo': 'Indigo',
  'prefs.accentBlue': 'Blue',
  'prefs.accentTeal': 'Teal',
  'prefs.accentViolet': 'Violet',
  'prefs.accentRose': 'Rose',
  'prefs.accentRed': 'Red',
  'prefs.accentOrange': 'Orange',
  'prefs.accentBlack': 'Black',
  'prefs.density': 'Density',
  'prefs.densityComfortable': 'Comfortable',
  'prefs.densityCompact': 'Compact',
  'prefs.locale': 'Language and region',
  'prefs.dir': 'Text direction',
  'prefs.dirLtr': 'Left to right',
  'prefs.dirRtl': 'Right to left',

  'breadcrumbs.label': 'Breadcrumb',
  'live.paused': 'Live updates are paused; reconnecting…',

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

  'home.title': 'Home',
  'home.greeting': 'Hello, {name}.',
  'home.intro': 'This is your administration dashboard. The areas in the menu arrive one by one.',

  'notFound.title': 'Page not found',
  'notFound.body': 'There is nothing at this address.',
  'notFound.home': 'Go to the home page',
} as const;
