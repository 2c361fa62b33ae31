import { useSyncExternalStore } from 'react';
import { browserTimeZone, type ValueContext } from './format';

/*
 * The person's reading conventions for every value on screen. The locale is the one their
 * preferences resolve to, which the shell puts on <html data-locale> (i18n/t.ts; `lang` names the
 * catalogue shown, which may be another: German formats with the English text when German has none);
 * reading it there costs one observer for the whole page instead of a query per cell. The time
 * zone is the one the person chose on the preferences screen, kept in this browser (decision ME8:
 * the seed's preferences hold five look settings and no zone), else the browser's own: this is
 * the one place the dashboard decides it.
 */

const ZONE_KEY = 'svc-admin.timeZone';

let current: ValueContext | null = null;
const listeners = new Set<() => void>();
let observer: MutationObserver | null = null;
/**
 * Whether `current` may be stale: set by every change the observers see, and always while none
 * is installed yet. A grid draws hundreds of values a frame while scrolling, each asking for the
 * context; the browser's zone (a new Intl.DateTimeFormat and its resolvedOptions) and <html lang>
 * are read again only after a change (decisions DB57).
 */
let stale = true;
const notify = () => {
  stale = true;
  listeners.forEach((l) => l());
};
/** The browser's own zone, asked once a page (Chrome and Firefox keep theirs until the page is reloaded as well). */
let browserZone: string | null = null;

/** A zone this browser can format in; anything else (a foreign or stale value, a name from a newer tz database) is not one. */
function usableZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The stored choice, validated: a value this browser cannot format in reads as none, so the browser's zone applies. */
function storedZone(): string | null {
  try {
    const stored = localStorage.getItem(ZONE_KEY);
    return stored !== null && usableZone(stored) ? stored : null;
  } catch {
    return null; // storage off
  }
}

let preferredZone: string | null = storedZone();

/** The zone the person chose in this browser, or null when they follow the browser's own. */
export function preferredTimeZone(): string | null {
  return preferredZone;
}

/**
 * Keeps the person's zone in this browser (null: back to the browser's own) and redraws every
 * value in it. A zone this browser cannot format in is refused: the answer says what was kept.
 */
export function setPreferredTimeZone(zone: string | null): boolean {
  if (zone !== null && !usableZone(zone)) return false;
  try {
    if (zone === null) localStorage.removeItem(ZONE_KEY);
    else localStorage.setItem(ZONE_KEY, zone);
  } catch {
    // A browser that keeps nothing: the choice lasts until the page is left.
  }
  if (zone !== preferredZone) {
    preferredZone = zone;
    notify();
  }
  return true;
}

function read(): ValueContext {
  if (current && !stale) return current;
  // The locale the person asked for (i18n/t.ts puts it in data-locale), which may have no catalogue: its formats still apply.
  const root = document.documentElement;
  const locale = root.dataset.locale || root.lang || navigator.language || 'en';
  const timeZone = preferredZone ?? (browserZone ??= browserTimeZone());
  if (!current || current.locale !== locale || current.timeZone !== timeZone) current = { locale, timeZone };
  // Kept until an observer says otherwise (none yet: read again next time).
  if (observer) stale = false;
  return current;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!observer) {
    observer = new MutationObserver(notify);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang', 'data-locale'] });
    // A choice made in another tab of this browser applies here too.
    window.addEventListener('storage', (event) => {
      if (event.key !== ZONE_KEY && event.key !== null) return;
      const next = storedZone();
      if (next === preferredZone) return;
      preferredZone = next;
      notify();
    });
  }
  return () => {
    listeners.delete(listener);
  };
}

const SERVER: ValueContext = { locale: 'en', timeZone: 'UTC' };

/** The locale and time zone values are shown in; re-renders when the person's locale or zone changes. */
export function useValueContext(): ValueContext {
  return useSyncExternalStore(subscribe, read, () => SERVER);
}

/** The zone chosen in this browser (null: none), for the screen that changes it. */
export function usePreferredTimeZone(): string | null {
  return useSyncExternalStore(subscribe, preferredTimeZone, () => null);
}
