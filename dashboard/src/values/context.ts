import { useSyncExternalStore } from 'react';
import { browserTimeZone, type ValueContext } from './format';

/*
 * The person's reading conventions for every value on screen. The locale is the one their
 * preferences resolve to, which the shell already puts on <html lang> (shell/prefs.ts, applyLook);
 * reading it there costs one observer for the whole page instead of a query per cell. The time
 * zone is the browser's until preferences hold one (then it is read here, in this one place).
 */

let current: ValueContext | null = null;
const listeners = new Set<() => void>();
let observer: MutationObserver | null = null;

function read(): ValueContext {
  const locale = document.documentElement.lang || navigator.language || 'en';
  if (!current || current.locale !== locale) current = { locale, timeZone: browserTimeZone() };
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

/** The locale and time zone values are shown in; re-renders when the person's locale changes. */
export function useValueContext(): ValueContext {
  return useSyncExternalStore(subscribe, read, () => SERVER);
}
