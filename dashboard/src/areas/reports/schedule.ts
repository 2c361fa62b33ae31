import { Cron } from 'croner';
import { toString as cronWords } from 'cronstrue';
import { browserTimeZone, knownTimeZones } from '../../values/format';

/** The person's own time zone (the browser's): the form's default, and the zone of every date shown (D3). */
export const BROWSER_ZONE = browserTimeZone();

/** Every IANA zone the browser knows, with UTC and `extra` (a report's zone) kept in. */
export const timeZones = (extra: string): string[] => knownTimeZones(extra);

/** A date in the person's zone and locale. */
const personal = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const when = (ms: number) => personal.format(new Date(ms));

/** A date in `zone`, with the zone's short name (the preview's next runs). */
export function inZone(date: Date, zone: string): string {
  // dateStyle/timeStyle cannot be combined with timeZoneName (V8 throws): the parts are named.
  return new Intl.DateTimeFormat(undefined, {
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: zone,
    timeZoneName: 'short',
  }).format(date);
}

export type Preview = { ok: true; words: string; next: Date[] } | { ok: false; reason: 'empty' | 'fields' | 'invalid' | 'zone'; fields?: number };

/**
 * The preview of a schedule, computed in the browser with croner (the server's own scheduler,
 * so the runs shown are the runs made) and cronstrue for the words (decision DB32). Five
 * fields only, as the server (RP2); the server still decides (too-frequent is its rule).
 */
export function preview(cron: string, zone: string): Preview {
  const pattern = cron.trim();
  if (pattern === '') return { ok: false, reason: 'empty' };
  const fields = pattern.split(/\s+/).length;
  if (fields !== 5) return { ok: false, reason: 'fields', fields };
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
  } catch {
    return { ok: false, reason: 'zone' };
  }
  try {
    const job = new Cron(pattern, { timezone: zone, paused: true });
    const next = job.nextRuns(5);
    job.stop();
    if (next.length === 0) return { ok: false, reason: 'invalid' };
    return { ok: true, words: describe(pattern), next };
  } catch {
    return { ok: false, reason: 'invalid' };
  }
}

/** The pattern in words ("At 07:00 AM, Monday through Friday"), else the pattern itself. */
export function describe(cron: string): string {
  try {
    return cronWords(cron, { use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false });
  } catch {
    return cron;
  }
}
