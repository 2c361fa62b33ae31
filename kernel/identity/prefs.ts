import { z } from 'zod';
import { localeField } from '../locale.js';

/** The seed's Preferences fields (D10). Shared by the user's prefs and the global defaults. */
export const prefFields = {
  theme: z.enum(['light', 'dark', 'system']).nullable(),
  accent: z.enum(['indigo', 'blue', 'teal', 'violet', 'rose', 'red', 'orange', 'black']).nullable(),
  density: z.enum(['comfortable', 'compact']).nullable(),
  locale: localeField.nullable(),
  dir: z.enum(['ltr', 'rtl']).nullable(),
};

export const prefsSchema = z.strictObject(prefFields).meta({ id: 'Prefs' });
export type Prefs = z.infer<typeof prefsSchema>;
export type PrefKey = keyof Prefs;
export const PREF_KEYS = Object.keys(prefFields) as PrefKey[];

const sourceEnum = z.enum(['system', 'global', 'user']);
export const resolvedPrefsSchema = z
  .strictObject({
    theme: z.enum(['light', 'dark', 'system']),
    accent: prefFields.accent.unwrap(),
    density: prefFields.density.unwrap(),
    locale: z.string(),
    dir: z.enum(['ltr', 'rtl']),
    source: z.strictObject({ theme: sourceEnum, accent: sourceEnum, density: sourceEnum, locale: sourceEnum, dir: sourceEnum }),
  })
  .meta({ id: 'ResolvedPrefs' });
export type ResolvedPrefs = z.infer<typeof resolvedPrefsSchema>;

export const EMPTY_PREFS: Prefs = { theme: null, accent: null, density: null, locale: null, dir: null };

const RTL_LANGUAGES = new Set(['ar', 'he', 'fa', 'ur']);

export function dirOfLocale(locale: string): 'ltr' | 'rtl' {
  return RTL_LANGUAGES.has(locale.split('_')[0]!) ? 'rtl' : 'ltr';
}

/**
 * D10: each field is the user's value, else the global default, else the system default;
 * the system default of `dir` follows the resolved locale.
 */
export function resolvePrefs(user: Prefs, global: Prefs): ResolvedPrefs {
  const pick = <K extends PrefKey>(key: K, system: NonNullable<Prefs[K]>) =>
    user[key] !== null
      ? { value: user[key]!, source: 'user' as const }
      : global[key] !== null
        ? { value: global[key]!, source: 'global' as const }
        : { value: system, source: 'system' as const };
  const theme = pick('theme', 'system');
  const accent = pick('accent', 'indigo');
  const density = pick('density', 'comfortable');
  const locale = pick('locale', 'en');
  const dir = pick('dir', dirOfLocale(locale.value));
  return {
    theme: theme.value,
    accent: accent.value,
    density: density.value,
    locale: locale.value,
    dir: dir.value,
    source: { theme: theme.source, accent: accent.source, density: density.source, locale: locale.source, dir: dir.source },
  };
}
