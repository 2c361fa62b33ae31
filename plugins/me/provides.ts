import { defineServiceRef, type Prefs, type ResolvedPrefs } from '../../kernel/api.js';

/**
 * What the me plugin provides to others (`kernel.plugin(meRef)` from a plugin that requires
 * 'me'): a user's own preferences are its tables, so another plugin asks here, not there.
 */
export interface MeProvides {
  /**
   * The locale saved in the preferences of the user with this e-mail address (in any case), as
   * stored; null when no user has the address or they chose none. Mail to an address goes in its
   * owner's language.
   */
  localeOfAddress(email: string): Promise<string | null>;
  /** The user's preferences as `GET /me/prefs` answers them: their own values and each field resolved (D10). */
  prefsOf(userId: string): Promise<{ prefs: Prefs; resolved: ResolvedPrefs }>;
  /** How many of the user's notifications are unread (the bell's badge, ME4's unreadCount). */
  unreadNotifications(userId: string): Promise<number>;
}

/** `kernel.plugin(meRef)` from a plugin that requires 'me'. */
export const meRef = defineServiceRef<MeProvides>('me');
