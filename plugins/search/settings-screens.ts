import type { NameEntry } from './names.js';

/** A settings screen of the dashboard; shown to those holding `permission`, or to every signed-in person (their own account's screens). */
export interface SettingEntry extends NameEntry {
  /** null: a screen about the caller's own account, for a signed-in person (not an API key). */
  permission: string | null;
}

/**
 * The dashboard's settings screens, by the paths its areas route (dashboard/src/areas/settings,
 * account, people, public-api) and the titles they show (decisions SR4). A static list: the
 * dashboard knows the server only through /api/v1, so the server keeps its own copy of these paths.
 */
export const SETTING_SCREENS: SettingEntry[] = [
  { id: 'settings', title: 'About this instance', subtitle: 'Settings', url: '/settings', words: 'settings system version', permission: 'settings.read' },
  {
    id: 'settings-defaults',
    title: 'Default preferences',
    subtitle: 'Settings',
    url: '/settings/defaults',
    words: 'language theme locale',
    permission: 'settings.read',
  },
  { id: 'settings-email', title: 'Outgoing e-mail', subtitle: 'Settings', url: '/settings/email', words: 'email mail smtp', permission: 'settings.read' },
  {
    id: 'settings-security',
    title: 'Security',
    subtitle: 'Settings',
    url: '/settings/security',
    words: 'password policy two-factor',
    permission: 'settings.read',
  },
  { id: 'api-keys', title: 'API keys', subtitle: 'People', url: '/api-keys', words: 'keys tokens', permission: 'api-keys.read' },
  { id: 'audit', title: 'Audit log', subtitle: 'People', url: '/audit', words: 'history audit', permission: 'audit.read' },
  { id: 'public-api', title: 'Public API', subtitle: 'Public API', url: '/public-api', words: 'switch', permission: 'public-api.read' },
  {
    id: 'public-api-endpoints',
    title: 'Public endpoints',
    subtitle: 'Public API',
    url: '/public-api/endpoints',
    words: 'endpoints',
    permission: 'public-api.read',
  },
  { id: 'public-api-keys', title: 'Public keys', subtitle: 'Public API', url: '/public-api/keys', words: 'keys', permission: 'public-api.read' },
  {
    id: 'public-api-email-templates',
    title: 'E-mail templates',
    subtitle: 'Public API',
    url: '/public-api/email-templates',
    words: 'email mail',
    permission: 'email-templates.read',
  },
  { id: 'account-profile', title: 'Profile', subtitle: 'My account', url: '/account/profile', words: 'name email password', permission: null },
  {
    id: 'account-preferences',
    title: 'Preferences',
    subtitle: 'My account',
    url: '/account/preferences',
    words: 'appearance theme language',
    permission: null,
  },
  { id: 'account-sessions', title: 'My sessions', subtitle: 'My account', url: '/account/sessions', words: 'devices sign out', permission: null },
  {
    id: 'account-two-factor',
    title: 'Two-step verification',
    subtitle: 'My account',
    url: '/account/two-factor',
    words: 'totp 2fa security',
    permission: null,
  },
  { id: 'account-notifications', title: 'Notifications', subtitle: 'My account', url: '/account/notifications', words: 'alerts', permission: null },
];
