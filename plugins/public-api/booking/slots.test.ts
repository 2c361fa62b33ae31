import { describe, expect, it } from 'vitest';
import { instantOf, offsetAt, wallClock } from './clock.js';
import { daySlots, slotAt, slotState } from './slots.js';

const BERLIN = 'Europe/Berlin';
const night = { openingHours: { sun: [['01:00', '04:00']] as Array<[string, string]> }, slotMinutes: 30 };

describe('venue clock', () => {
  it('knows the offsets either side of both 2026 changes in Berlin', () => {
    expect(offsetAt(BERLIN, Date.UTC(2026, 2, 29, 0, 59))).toBe(3_600_000);
    expect(offsetAt(BERLIN, Date.UTC(2026, 2, 29, 1, 0))).toBe(7_200_000);
    expect(offsetAt(BERLIN, Date.UTC(2026, 9, 25, 0, 59))).toBe(7_200_000);
    expect(offsetAt(BERLIN, Date.UTC(2026, 9, 25, 1, 0))).toBe(3_600_000);
  });

  it('has no instant for a skipped time and the first one for a repeated time', () => {
    expect(instantOf(BERLIN, '2026-03-29', 2 * 60 + 30)).toBeNull();
    expect(instantOf(BERLIN, '2026-03-29', 3 * 60)).toBe(Date.UTC(2026, 2, 29, 1, 0));
    expect(instantOf(BERLIN, '2026-10-25', 2 * 60 + 30)).toBe(Date.UTC(2026, 9, 25, 0, 30));
    expect(instantOf(BERLIN, '2026-10-25', 3 * 60)).toBe(Date.UTC(2026, 9, 25, 2, 0));
    expect(wallClock(BERLIN, Date.UTC(2026, 9, 25, 1, 30))).toEqual({ date: '2026-10-25', minutes: 150 });
  });
});

describe('slots', () => {
  it('skips the hour the spring change removes', () => {
    const slots = daySlots(night, BERLIN, '2026-03-29');
    expect(slots.map((s) => s.time)).toEqual(['01:00', '01:30', '03:00', '03:30']);
    expect(slots[2]!.start).toBe(Date.UTC(2026, 2, 29, 1, 0));
  });

  it('keeps every label on the autumn change, each at its first instant', () => {
    const slots = daySlots(night, BERLIN, '2026-10-25');
    expect(slots.map((s) => s.time)).toEqual(['01:00', '01:30', '02:00', '02:30', '03:00', '03:30']);
    expect(slots.map((s) => new Date(s.start).toISOString().slice(11, 16))).toEqual(['23:00', '23:30', '00:00', '00:30', '02:00', '02:30']);
  });

  it('runs from opening to the last start before closing, past midnight too', () => {
    const rules = {
      openingHours: {
        fri: [
          ['18:00', '22:00'],
          ['23:00', '01:00'],
        ] as Array<[string, string]>,
      },
      slotMinutes: 45,
    };
    expect(daySlots(rules, 'UTC', '2026-05-01').map((s) => s.time)).toEqual(['18:00', '18:45', '19:30', '20:15', '21:00', '21:45', '23:00', '23:45', '00:30']);
    expect(slotAt(rules, 'UTC', Date.UTC(2026, 4, 2, 0, 30))?.time).toBe('00:30');
    expect(slotAt(rules, 'UTC', Date.UTC(2026, 4, 1, 18, 10))).toBeNull();
    expect(daySlots(rules, 'UTC', '2026-05-02')).toEqual([]);
  });

  it('is full in the past, beyond the window, or without room for the party', () => {
    const [slot] = daySlots({ openingHours: { mon: [['12:00', '13:00']] }, slotMinutes: 60 }, 'UTC', '2026-06-01');
    const rules = { capacity: 4, windowDays: 10 };
    const before = slot!.start - 3_600_000;
    expect(slotState(slot!, [], rules, 4, before)).toBe('free');
    expect(slotState(slot!, [], rules, 5, before)).toBe('full');
    expect(slotState(slot!, [{ at: slot!.start, party: 2 }], rules, 3, before)).toBe('full');
    expect(slotState(slot!, [{ at: slot!.start, party: 2 }], rules, 2, before)).toBe('free');
    expect(slotState(slot!, [], rules, 1, slot!.start)).toBe('full');
    expect(slotState(slot!, [], rules, 1, slot!.start - 11 * 86_400_000)).toBe('full');
  });
});
