import { z } from 'zod';
import { timeZoneField } from '../../addons-sdk/src/manifest/endpoint.js';

/** The seed's Preferences fields (D10). Shared by the user's prefs and the global defaults. */
export const prefFields = {
  theme: z.enum(['light', 'dark', 'system']).nullable(),
  accent: z.enum(['indigo', 'blue', 'teal', 'violet', 'rose', 'red', 'orange', 'black']).nullable(),
  density: z.enum(['comfortable', 'compact']).nullable(),
  locale: z
    .string()
    .min(2)
    .max(35)
    .regex(/^[a-z]{2,3}(_[A-Za-z0-9]{2,8}){0,2}$/)
    .nullable(),
  dir: z.enum(['ltr', 'rtl']).nullable(),
  /** An IANA zone the server knows (Europe/Paris), checked as reports' and add-ons' zones are; null: the device's own zone (ME8). */
  timeZone: timeZoneField.nullable(),
};

export const prefsSchema = z.strictObject(prefFields).meta({ id: 'Prefs' });
export type Prefs = z.infer<typeof prefsSchema>;
export type PrefKey = keyof Prefs;
export const PREF_KEYS = Object.keys(prefFields) as PrefKey[];

/**
 * A whole set of preferences sent as a request body (PUT /settings/defaults): `timeZone` came
 * after the seed's five fields, so a client that sends only those keeps working (v1 is additive).
 */
export const prefsBodySchema = prefsSchema.extend({ timeZone: prefFields.timeZone.optional() }).meta({ id: 'PrefsBody' });

const sourceEnum = z.enum(['system', 'global', 'user']);
export const resolvedPrefsSchema = z
  .strictObject({
    theme: z.enum(['light', 'dark', 'system']),
    accent: prefFields.accent.unwrap(),
    density: prefFields.density.unwrap(),
    locale: z.string(),
    dir: z.enum(['ltr', 'rtl']),
    /** Null: no one chose a zone, and each device shows its own (only the device knows it). */
    timeZone: z.string().nullable(),
    source: z.strictObject({ theme: sourceEnum, accent: sourceEnum, density: sourceEnum, locale: sourceEnum, dir: sourceEnum, timeZone: sourceEnum }),
  })
  .meta({ id: 'ResolvedPrefs' });
export type ResolvedPrefs = z.infer<typeof resolvedPrefsSchema>;

export const EMPTY_PREFS: Prefs = { theme: null, accent: null, density: null, locale: null, dir: null, timeZone: null };

const RTL_LANGUAGES = new Set(['ar', 'he', 'fa', 'ur']);

export function dirOfLocale(locale: string): 'ltr' | 'rtl' {
  return RTL_LANGUAGES.has(locale.split('_')[0]!) ? 'rtl' : 'ltr';
}

/**
 * D10: each field is the user's value, else the global default, else the system default;
 * the system default of `dir` follows the resolved locale.
 */
export function resolvePrefs(user: Prefs, global: Prefs): ResolvedPrefs {
  const pick = <K extends PrefKey, S extends Prefs[K]>(key: K, system: S) =>
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
  const timeZone = pick('timeZone', null);
  return {
    theme: theme.value,
    accent: accent.value,
    density: density.value,
    locale: locale.value,
    dir: dir.value,
    timeZone: timeZone.value,
    source: { theme: theme.source, accent: accent.source, density: density.source, locale: locale.source, dir: dir.source, timeZone: timeZone.source },
  };
}
