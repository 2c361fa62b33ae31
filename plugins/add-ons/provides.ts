import { defineServiceRef } from '../../kernel/api.js';

/** What the add-ons plugin provides to others (`kernel.plugin(addonsRef)` from a plugin that requires 'add-ons'). */
export interface AddonsProvides {
  /** How many add-ons are installed (enabled or disabled): the onboarding's "install an add-on" step. */
  installedCount(): Promise<number>;
}

/** `kernel.plugin(addonsRef)` from a plugin that requires 'add-ons'. */
export const addonsRef = defineServiceRef<AddonsProvides>('add-ons');
