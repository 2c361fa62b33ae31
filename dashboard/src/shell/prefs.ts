import { useEffect } from 'react';
import { usePrefs, type Prefs, type ResolvedPrefs } from '../areas/account/api';
import type { MessageId } from '../i18n/t';

export type PrefKey = keyof Prefs;

/** The seed's values (kernel/identity/prefs.ts), in the order the screens offer them. */
export const THEMES = ['system', 'light', 'dark'] as const;
export const ACCENTS = ['indigo', 'blue', 'teal', 'violet', 'rose', 'red', 'orange', 'black'] as const;
export const DENSITIES = ['comfortable', 'compact'] as const;
export const DIRS = ['ltr', 'rtl'] as const;
/** Locales offered in the lists; a stored one outside it is shown too. */
/** The catalogue's name of each value. */
export const THEME_LABEL: Record<(typeof THEMES)[number], MessageId> = { system: 'prefs.themeSystem', light: 'prefs.themeLight', dark: 'prefs.themeDark' };
export const ACCENT_LABEL: Record<(typeof ACCENTS)[number], MessageId> = {
  indigo: 'prefs.accentIndigo',
  blue: 'prefs.accentBlue',
  teal: 'prefs.accentTeal',
  violet: 'prefs.accentViolet',
  rose: 'prefs.accentRose',
  red: 'prefs.accentRed',
  orange: 'prefs.accentOrange',
  black: 'prefs.accentBlack',
};
export const DENSITY_LABEL: Record<(typeof DENSITIES)[number], MessageId> = { comfortable: 'prefs.densityComfortable', compact: 'prefs.densityCompact' };
export const DIR_LABEL: Record<(typeof DIRS)[number], MessageId> = { ltr: 'prefs.dirLtr', rtl: 'prefs.dirRtl' };

export const LOCALES = ['en', 'en_GB', 'de', 'fr', 'es', 'it', 'nl', 'pt_BR', 'pl', 'sv', 'ja', 'zh_CN', 'ar', 'he', 'fa'] as const;

/** The seed writes locales with `_` (pt_BR); HTML's lang wants BCP 47 (pt-BR). */
export const bcp47 = (locale: string) => locale.replace(/_/g, '-');

/** A locale's name in its own language (Deutsch, العربية), or the code when the browser does not know it. */
export function localeName(locale: string): string {
  try {
    return new Intl.DisplayNames([bcp47(locale)], { type: 'language' }).of(bcp47(locale)) ?? locale;
  } catch {
    return locale;
  }
}

type Look = Pick<ResolvedPrefs, 'theme' | 'accent' | 'density' | 'locale' | 'dir'>;
const STORED = 'svc-admin.look';

/** Sets the look on <html> (styles.css reads the attributes) and remembers it for the next start. */
export function applyLook(look: Look): void {
  const root = document.documentElement;
  root.dataset.theme = look.theme;
  root.dataset.accent = look.accent;
  root.dataset.density = look.density;
  root.dir = look.dir;
  root.lang = bcp47(look.locale);
  try {
    localStorage.setItem(STORED, JSON.stringify({ theme: look.theme, accent: look.accent, density: look.density, locale: look.locale, dir: look.dir }));
  } catch {
    // Storage off (private mode): the server's answer still applies once it arrives.
  }
}

/** The look last applied in this browser, applied before the first paint so a dark choice does not flash light. */
export function applyRememberedLook(): void {
  try {
    const raw = localStorage.getItem(STORED);
    if (!raw) return;
    const look = JSON.parse(raw) as Partial<Look>;
    if (typeof look.theme !== 'string' || typeof look.accent !== 'string' || typeof look.density !== 'string') return;
    if (typeof look.locale !== 'string' || (look.dir !== 'ltr' && look.dir !== 'rtl')) return;
    applyLook(look as Look);
  } catch {
    // Nothing usable remembered.
  }
}

/** Keeps <html> in step with the signed-in person's resolved preferences (rendered by the Layout). */
export function useAppliedPrefs(): void {
  const prefs = usePrefs();
  const resolved = prefs.data?.resolved;
  useEffect(() => {
    if (resolved) applyLook(resolved);
  }, [resolved]);
}
