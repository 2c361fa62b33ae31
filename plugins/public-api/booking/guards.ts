import { randomInt } from 'node:crypto';
import { AppError } from '../../../kernel/api.js';
import type { AnyDb, RowDialect } from '../../../engine/rows/index.js';
import type { BookingRules, EndpointDefinition } from '../../public-admin/provides.js';
import type { Opened } from '../access.js';
import { writeRefused } from '../errors.js';
import { bookingsBetween, holds } from './capacity.js';
import { slotAt, type Slot } from './slots.js';
import { instantOfWire } from './times.js';

const MINUTE = 60_000;

/** Guest rules hold for every public caller but a service-role endpoint (a venue's own backend). */
const guestRules = (endpoint: EndpointDefinition) => !endpoint.serviceRole;

/**
 * PUBLIC_TOO_EARLY: a customer's own row before the endpoint's window around its time opens
 * (`at` = the row's time, `from` = when the window opens; ms, D3).
 */
export function windowGuard(opened: Opened, row: Record<string, unknown>, now: number): void {
  const w = opened.endpoint.window;
  if (!w || !opened.scope.identity || !guestRules(opened.endpoint)) return;
  const at = instantOfWire(row[w.column]);
  if (at === null) return;
  const from = at - w.opensBeforeMinutes * MINUTE;
  if (now < from) throw new AppError('PUBLIC_TOO_EARLY', { params: { at, from } });
}

/** PUBLIC_TOO_LATE: a booking changed or cancelled inside the cancellation window (`at` = when changes closed). */
export function lateGuard(opened: Opened, row: Record<string, unknown>, now: number): void {
  const rules = opened.endpoint.booking;
  if (!rules || !guestRules(opened.endpoint)) return;
  const at = instantOfWire(row[rules.timeColumn]);
  if (at === null) return;
  const closed = at - rules.cancelBeforeMinutes * MINUTE;
  if (now >= closed) throw new AppError('PUBLIC_TOO_LATE', { params: { at: closed } });
}

export interface BookingTarget {
  slot: Slot;
  party: number;
}

/** The slot a written booking takes, checked before any lock: a real slot, bookable now, a sane party. */
export function bookingTarget(endpoint: EndpointDefinition, rules: BookingRules, at: number | null, party: number, now: number): BookingTarget {
  if (at === null) throw writeRefused(rules.timeColumn, 'required');
  const slot = slotAt(rules, endpoint.timeZone, at);
  if (!slot) throw writeRefused(rules.timeColumn, 'not-a-slot');
  if (!Number.isSafeInteger(party) || party < 1) throw writeRefused(rules.partyColumn, 'out-of-range');
  if (slot.start <= now || slot.start > now + rules.windowDays * 1440 * MINUTE || party > rules.capacity) throw new AppError('PUBLIC_SLOT_FULL');
  return { slot, party };
}

/** The lock that serialises bookings of one slot of one table, across every endpoint over it. */
export function slotLockKey(endpoint: EndpointDefinition, slot: Slot): string {
  return `${endpoint.connectionId}\u0000${endpoint.table}\u0000${slot.start}`;
}

/**
 * The capacity check at write time, inside the slot's lock: the places other bookings of the
 * slot hold (a row being moved, named by `except`, not counted) leave room for `party`?
 */
export async function ensureRoom(
  trx: AnyDb,
  d: RowDialect,
  opened: Opened,
  rules: BookingRules,
  target: BookingTarget,
  except: Record<string, unknown> | null,
): Promise<void> {
  const keys = except ? Object.keys(except) : [];
  const rows = await bookingsBetween(trx, d, opened.table, rules, opened.scope.defaults, target.slot.start, target.slot.end, keys);
  let taken = 0;
  for (const r of rows) if (!except || !holds(r, except)) taken += r.party;
  if (taken + target.party > rules.capacity) throw new AppError('PUBLIC_SLOT_FULL');
}

const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A booking code like `K7Q2-94XD` (Crockford letters: no I, L, O, U to misread), fitted to the column. */
export function bookingCode(maxLength: number | null): string {
  let raw = '';
  for (let i = 0; i < 8; i++) raw += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  const code = `${raw.slice(0, 4)}-${raw.slice(4)}`;
  if (maxLength === null || maxLength >= code.length) return code;
  return raw.slice(0, Math.max(1, maxLength));
}
