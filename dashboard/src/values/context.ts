import { useSyncExternalStore } from 'react';
import { browserTimeZone, type ValueContext } from './format';

/*
 * The person's reading conventions for every value on screen. The locale is the one their
 * preferences resolve to, which the shell already puts on <html lang> (shell/prefs.ts, applyLook);
 * reading it there costs one observer for the whole page instead of a query per cell. The time
 * zone is the one their preferences resolve to (ME8), given here by the same applyLook, else the
 * browser's: this is the one place the dashboard decides it.
 */

let current: ValueContext | null = null;
const listeners = new Set<() => void>();
let observer: MutationObserver | null = null;
let preferredZone: string | null = null;

/** A zone this browser can format in; the server knows IANA names this browser may not (a newer tz database). */
function usableZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The person's chosen zone (null: the browser's); every value drawn after this uses it. */
export function setPreferredTimeZone(zone: string | null): void {
  const next = zone && usableZone(zone) ? zone : null;
  if (next === preferredZone) return;
  preferredZone = next;
  listeners.forEach((l) => l());
}

function read(): ValueContext {
  const locale = document.documentElement.lang || navigator.language || 'en';
  const timeZone = preferredZone ?? browserTimeZone();
  if (!current || current.locale !== locale || current.timeZone !== timeZone) current = { locale, timeZone };
  return current;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!observer) {
    observer = new MutationObserver(() => listeners.forEach((l) => l()));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'] });
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
