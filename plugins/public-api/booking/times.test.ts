import { describe, expect, it } from 'vitest';
import { acceptLanguage, manageLink, templateLocale, venueTime, windowInWords } from './confirmation.js';
import { instantOfWire, venueValue } from './times.js';

describe('booking times on the wire', () => {
  it('reads naive date-times as UTC and honours an offset', () => {
    expect(instantOfWire('2026-03-29T01:00:00')).toBe(Date.UTC(2026, 2, 29, 1));
    expect(instantOfWire('2026-03-29 01:00:00.5')).toBe(Date.UTC(2026, 2, 29, 1, 0, 0, 500));
    expect(instantOfWire('2026-03-29T03:00:00+0200')).toBe(Date.UTC(2026, 2, 29, 1));
    expect(instantOfWire('2026-03-29T01:00:00Z')).toBe(Date.UTC(2026, 2, 29, 1));
    expect(instantOfWire('tomorrow')).toBeNull();
  });

  it('takes a zoneless booking time on the venue’s clock', () => {
    expect(venueValue('2026-03-29T03:00', 'Europe/Berlin')).toBe('2026-03-29T01:00:00.000Z');
    expect(venueValue('2026-10-25T02:30', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
    expect(venueValue('2026-03-29T02:30', 'Europe/Berlin')).toBeNull();
    expect(venueValue('2026-03-29T02:30:00Z', 'Europe/Berlin')).toBe('2026-03-29T02:30:00Z');
    expect(venueValue(42, 'Europe/Berlin')).toBe(42);
  });
});

describe('the confirmation’s words', () => {
  it('picks the guest’s language', () => {
    expect(templateLocale('de-DE')).toBe('de_DE');
    expect(templateLocale('pt_br')).toBe('pt_BR');
    expect(templateLocale('')).toBeNull();
    expect(acceptLanguage('fr-CH, de;q=0.9, *;q=0.1')).toBe('fr_CH');
    expect(acceptLanguage('en;q=0.2, nl')).toBe('nl');
    expect(acceptLanguage(undefined)).toBeNull();
  });

  it('writes the time on the venue’s clock and the window in words', () => {
    expect(venueTime(Date.UTC(2026, 2, 12, 18, 0), 'Europe/Berlin', 'de')).toContain('19:00');
    expect(windowInWords(120, 'de')).toBe('2 Stunden');
    expect(windowInWords(90, 'en')).toBe('90 minutes');
    expect(windowInWords(1440, 'fr').replace(/\s/gu, ' ')).toBe('1 jour');
    expect(manageLink('https://shop.example/book?x=1#top', 'K7Q2-94XD')).toBe('https://shop.example/book?x=1&booking=K7Q2-94XD');
  });
});
