import { defineServiceRef, type Prefs } from '../../kernel/api.js';
import type { SecuritySettings } from './service.js';

export type { SecuritySettings };

/** What the settings plugin provides: auth reads the security policy, me the preference defaults. */
export interface SettingsProvides {
  security(): Promise<SecuritySettings>;
  defaults(): Promise<Prefs>;
}

/** `kernel.plugin(settingsRef)` from a plugin that requires 'settings'. */
export const settingsRef = defineServiceRef<SettingsProvides>('settings');
