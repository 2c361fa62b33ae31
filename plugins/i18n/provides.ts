import { defineServiceRef } from '../../kernel/api.js';

/** What the i18n plugin offers others: the enabled locales (e-mail templates offer each). */
export interface I18nProvides {
  enabledLocales(): Promise<string[]>;
}

export const i18nRef = defineServiceRef<I18nProvides>('i18n');
