import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLocales } from '../api/i18n';
import { usePrefs, type Prefs, type ResolvedPrefs } from '../areas/account/api';
import { bcp47, browserLocales, showLocale, type MessageId } from '../i18n/t';

export type PrefKey = keyof Prefs;

/** The seed's values (kernel/identity/prefs.ts), in the order the screens offer them. */
export const THEMES = ['system', 'light', 'dark'] as const;
export const ACCENTS = ['indigo', 'blue', 'teal', 'violet', 'rose', 'red', 'orange', 'black'] as const;
export const DENSITIES = ['comfortable', 'compact'] as const;
export const DIRS = ['ltr', 'rtl'] as const;
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

export { i18nLocalesKey, useLocales } from '../api/i18n';

/**
 * The languages to offer: the enabled locales, each named in its own language, and `current` (a
 * stored one no longer enabled, or not yet read) first when it is not among them.
 */
export function useLocaleChoices(current: string | null): Array<{ value: string; label: string; lang: string }> {
  const locales = useLocales();
  const enabled = (locales.data ?? []).filter((l) => l.enabled);
  const choices = enabled.map((l) => ({ value: l.locale, label: ownName(l.locale) ?? l.name, lang: bcp47(l.locale) }));
  if (current && !choices.some((c) => c.value === current)) choices.unshift({ value: current, label: localeName(current), lang: bcp47(current) });
  return choices;
}

/** A locale's name in its own language (Deutsch, العربية), or the code when the browser does not know it. */
export function localeName(locale: string): string {
  return ownName(locale) ?? locale;
}

/** The browser's name of a locale in its own language, or undefined when it has none. */
function ownName(locale: string): string | undefined {
  try {
    const name = new Intl.DisplayNames([bcp47(locale)], { type: 'language' }).of(bcp47(locale));
    return name && name !== bcp47(locale) ? name : undefined;
  } catch {
    return undefined;
  }
}

type Look = Pick<ResolvedPrefs, 'theme' | 'accent' | 'density' | 'locale' | 'dir'> & { source?: Pick<ResolvedPrefs['source'], 'dir'> };
const STORED = 'svc-admin.look';

/**
 * The direction the person chose themselves, or null: then the shown locale's own applies (the
 * manifest's `dir`), so choosing Arabic mirrors the dashboard without a second choice (IN22).
 */
const chosenDir = (look: Look): 'ltr' | 'rtl' | null => (look.source?.dir === 'user' ? look.dir : null);

/**
 * Sets the look on <html> (styles.css reads the attributes), shows the best catalogue for the
 * locale (i18n/t.ts sets lang and dir once its strings are in), and remembers it for the next start.
 */
export function applyLook(look: Look): void {
  const root = document.documentElement;
  root.dataset.theme = look.theme;
  root.dataset.accent = look.accent;
  root.dataset.density = look.density;
  void showLocale(look.locale, chosenDir(look));
  try {
    localStorage.setItem(
      STORED,
      JSON.stringify({ theme: look.theme, accent: look.accent, density: look.density, locale: look.locale, dir: look.dir, source: { dir: look.source?.dir } }),
    );
  } catch {
    // Storage off (private mode): the server's answer still applies once it arrives.
  }
}

/** The look last applied in this browser, if any. */
function rememberedLook(): Look | null {
  try {
    const raw = localStorage.getItem(STORED);
    if (!raw) return null;
    const look = JSON.parse(raw) as Partial<Look>;
    if (typeof look.theme !== 'string' || typeof look.accent !== 'string' || typeof look.density !== 'string') return null;
    if (typeof look.locale !== 'string' || (look.dir !== 'ltr' && look.dir !== 'rtl')) return null;
    return look as Look;
  } catch {
    return null; // Nothing usable remembered.
  }
}

/** The look last applied in this browser, applied before the first paint so a dark choice does not flash light. */
export function applyRememberedLook(): void {
  const look = rememberedLook();
  if (look) applyLook(look);
}

/**
 * The catalogue to start with, before the first paint (main.tsx): the locale last applied in this
 * browser, else the browser's languages (signed out, or a first visit).
 */
export function startCatalogue(): Promise<void> {
  const look = rememberedLook();
  return look ? showLocale(look.locale, chosenDir(look)) : showLocale(browserLocales(), null);
}

/** Keeps <html> in step with the signed-in person's resolved preferences (rendered by the Layout). */
export function useAppliedPrefs(): void {
  const prefs = usePrefs();
  const resolved = prefs.data?.resolved;
  useEffect(() => {
    if (resolved) applyLook(resolved);
  }, [resolved]);
}
