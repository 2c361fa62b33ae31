import { z } from 'zod';

/**
 * A locale as the seed writes it (`/me/prefs`): a language of 2–3 lower-case letters and up to
 * two parts after underscores (`en`, `pt_BR`, `zh_Hant_TW`), 2–35 characters. The one spelling
 * every plugin validates with (decisions IN3).
 */
export const LOCALE_PATTERN = /^[a-z]{2,3}(_[A-Za-z0-9]{2,8}){0,2}$/;

export const isLocale = (value: string): boolean => value.length >= 2 && value.length <= 35 && LOCALE_PATTERN.test(value);

export const localeField = z.string().min(2).max(35).regex(LOCALE_PATTERN, 'A locale like en, de or pt_BR (an underscore, not a hyphen).');

/** The BCP 47 form Intl takes: `pt_BR` → `pt-BR`, `zh_hant_tw` → `zh-Hant-TW` (script title-cased, region upper-cased). */
export function toBcp47(locale: string): string {
  const [language, ...rest] = locale.split('_');
  const parts = rest.map((p) =>
    /^[A-Za-z]{4}$/.test(p) ? p[0]!.toUpperCase() + p.slice(1).toLowerCase() : /^([A-Za-z]{2}|\d{3})$/.test(p) ? p.toUpperCase() : p,
  );
  return [language!.toLowerCase(), ...parts].join('-');
}
