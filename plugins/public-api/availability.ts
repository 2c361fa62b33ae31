import { openEndpoint, onSource, type PublicCall } from './access.js';
import { bookingsBetween, holds } from './booking/capacity.js';
import { daySlots, slotState, type SlotState } from './booking/slots.js';
import { queryRefused, refNotFound } from './errors.js';
import { parseDate } from './booking/clock.js';
import type { PublicApi } from './service.js';
import { sessionFits } from './sessions.js';

/**
 * The slots of one venue day and whether a party of `party` fits in each. The answer holds
 * times and states only: never a row, a name or a count.
 */
export async function availability(
  api: PublicApi,
  call: PublicCall,
  ref: string,
  date: string,
  party: number,
): Promise<Array<{ time: string; state: SlotState }>> {
  // A booking widget's key may only book (POST): it still needs to see which times are free.
  const opened = await openEndpoint(api, call, ref, ['GET', 'POST'], 'read');
  const rules = opened.endpoint.booking;
  if (!rules) {
    opened.charge.refundKey();
    throw refNotFound();
  }
  if (parseDate(date) === null) throw queryRefused('date', 'invalid');
  // Each answer says whether `party` places are left; asking size after size would tell how many.
  // A party larger than the venue is full everywhere and tells nothing: it is not counted.
  if (party <= rules.capacity) api.limits.chargePartySize(opened.caller.key.id, opened.caller.key.kind, ref, opened.caller.address, party);
  const slots = daySlots(rules, opened.endpoint.timeZone, date);
  if (slots.length === 0) return [];
  // The guest's own booking does not count against them (seed): it is what they would move.
  const own = opened.session && sessionFits(opened.session, opened.endpoint) ? opened.session.identity : null;
  const booked = await onSource(api, opened, (db, d) =>
    bookingsBetween(db, d, opened.table, rules, opened.scope.defaults, slots[0]!.start, Math.max(...slots.map((s) => s.end)), own ? Object.keys(own) : []),
  );
  const counted = own ? booked.filter((b) => !holds(b, own)) : booked;
  const now = api.now();
  return slots.map((s) => ({ time: s.time, state: slotState(s, counted, rules, party, now) }));
}
