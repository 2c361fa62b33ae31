import type { Kernel } from '../../../kernel/api.js';
import { BOOKING_CONFIRMATION_TEMPLATE, type BookingConfirmationVars, type BookingRules } from '../../public-admin/provides.js';

/** `de-DE`, `de_de`, `pt-br` → `de_DE` / `pt_BR` (the template store's spelling, D15); null when unusable. */
export function templateLocale(tag: string | null | undefined): string | null {
  if (!tag) return null;
  const m = /^([a-zA-Z]{2,3})(?:[-_]([a-zA-Z0-9]{2,8}))?/.exec(tag.trim());
  if (!m) return null;
  return m[2] ? `${m[1]!.toLowerCase()}_${m[2].length === 2 ? m[2].toUpperCase() : m[2]}` : m[1]!.toLowerCase();
}

/** The guest's first language from Accept-Language (its order of preference, q-values honoured). */
export function acceptLanguage(header: string | undefined): string | null {
  if (!header) return null;
  const ranked = header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean);
      return { tag: tag!.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((t) => t.tag && t.tag !== '*' && t.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return ranked.length ? templateLocale(ranked[0]!.tag) : null;
}

const bcp47 = (locale: string) => locale.replace('_', '-');

function safeLocale(locale: string): string {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([bcp47(locale)]).length ? bcp47(locale) : 'en';
  } catch {
    return 'en';
  }
}

/** The booking time on the venue's clock, in the guest's language. */
export function venueTime(at: number, timeZone: string, locale: string): string {
  return new Intl.DateTimeFormat(safeLocale(locale), { timeZone, dateStyle: 'full', timeStyle: 'short' }).format(new Date(at));
}

/** "2 hours", "2 Stunden", "90 minutes", "1 day": the cancellation window in words. */
export function windowInWords(minutes: number, locale: string): string {
  const [value, unit] =
    minutes % 1440 === 0 && minutes > 0 ? [minutes / 1440, 'day'] : minutes % 60 === 0 && minutes > 0 ? [minutes / 60, 'hour'] : [minutes, 'minute'];
  return new Intl.NumberFormat(safeLocale(locale), { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}

/** Where the guest manages the booking: the page that booked it, with the code. */
export function manageLink(base: string, code: string): string {
  const url = new URL(base);
  url.hash = '';
  url.searchParams.set('booking', code);
  return url.toString();
}

export interface Confirmation {
  to: string;
  locale: string;
  at: number;
  code: string;
  party: number;
  base: string;
}

/**
 * Sends the confirmation after the answer has gone (Mailer.send never throws, and a booking
 * succeeds without e-mail set up: D15 and the seed's rule 4).
 */
export function sendConfirmation(kernel: Kernel, rules: BookingRules, timeZone: string, c: Confirmation): void {
  void (async () => {
    if (!(await kernel.mailer.configured())) return;
    const vars: BookingConfirmationVars = {
      code: c.code,
      time: venueTime(c.at, timeZone, c.locale),
      party: String(c.party),
      cancelWindow: windowInWords(rules.cancelBeforeMinutes, c.locale),
      manageLink: manageLink(c.base, c.code),
    };
    const res = await kernel.mailer.sendTemplate(BOOKING_CONFIRMATION_TEMPLATE, c.locale, c.to, { ...vars });
    if (!res.sent) kernel.log.warn({ reason: res.reason }, 'booking confirmation not sent');
  })().catch((err: Error) => kernel.log.error({ err: { message: err.message } }, 'booking confirmation failed'));
}
