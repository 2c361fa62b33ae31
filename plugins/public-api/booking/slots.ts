import type { BookingRules } from '../../public-admin/provides.js';
import { addDays, clockLabel, instantOf, parseClock, wallClock, weekDay } from './clock.js';

export interface Slot {
  /** `HH:MM` on the venue's clock. */
  time: string;
  start: number;
  end: number;
}

type SlotRules = Pick<BookingRules, 'openingHours' | 'slotMinutes'>;

/**
 * The slots of one venue day: from each opening to the last start before its closing. A close
 * at or before the opening runs past midnight. Wall-clock steps, so a day with a clock change
 * keeps its labels: a time the change skips has no slot; a time it repeats is its first instant.
 */
export function daySlots(rules: SlotRules, timeZone: string, date: string): Slot[] {
  const step = rules.slotMinutes;
  if (!(step > 0)) return [];
  const byTime = new Map<string, Slot>();
  for (const [openAt, closeAt] of rules.openingHours[weekDay(date)] ?? []) {
    const open = parseClock(openAt);
    let close = parseClock(closeAt);
    if (open === null || close === null) continue;
    if (close <= open) close += 1440;
    for (let m = open; m < close; m += step) {
      const start = instantOf(timeZone, date, m);
      if (start === null) continue;
      const time = clockLabel(m);
      if (!byTime.has(time)) byTime.set(time, { time, start, end: start + step * 60_000 });
    }
  }
  return [...byTime.values()].sort((a, b) => a.start - b.start);
}

/**
 * The slot that starts exactly at `at`, looking at the venue day of `at` and the day before
 * (whose late opening may run past midnight); null when no slot starts then.
 */
export function slotAt(rules: SlotRules, timeZone: string, at: number): Slot | null {
  const { date } = wallClock(timeZone, at);
  for (const day of [date, addDays(date, -1)]) {
    const hit = daySlots(rules, timeZone, day).find((s) => s.start === at);
    if (hit) return hit;
  }
  return null;
}

export interface Booked {
  at: number;
  party: number;
}

export type SlotState = 'free' | 'full';

/** Places taken in a slot by these bookings. */
export function placesTaken(slot: Slot, bookings: readonly Booked[]): number {
  let used = 0;
  for (const b of bookings) if (b.at >= slot.start && b.at < slot.end) used += b.party;
  return used;
}

/** Whether a slot can take `party` more now: not past, within the booking window, with room. */
export function slotState(
  slot: Slot,
  bookings: readonly Booked[],
  rules: Pick<BookingRules, 'capacity' | 'windowDays'>,
  party: number,
  now: number,
): SlotState {
  if (slot.start <= now) return 'full';
  if (slot.start > now + rules.windowDays * 86_400_000) return 'full';
  return placesTaken(slot, bookings) + party <= rules.capacity ? 'free' : 'full';
}
