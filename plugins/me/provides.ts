import { defineServiceRef } from '../../kernel/api.js';

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
}

/** `kernel.plugin(meRef)` from a plugin that requires 'me'. */
export const meRef = defineServiceRef<MeProvides>('me');
