import { instantOf } from './clock.js';

const WIRE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** A datetime wire value → its instant. engine/rows gives naive datetimes in UTC (README). */
export function instantOfWire(v: unknown): number | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.getTime();
  if (typeof v !== 'string') return null;
  const m = WIRE.exec(v.trim());
  if (!m) return null;
  const zone = m[6] ?? 'Z';
  const t = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4] ?? '00'}${m[5] ?? ''}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  return Number.isNaN(t) ? null : t;
}

export function isoInstant(at: number): string {
  return new Date(at).toISOString();
}

/**
 * A booking time as a guest writes it. Without a zone it is a time on the venue's clock (what
 * availability lists), so a widget needs no offset arithmetic; with `Z` or an offset it is that
 * instant. Returns the value to store (an instant with `Z`), the input unchanged when it is not
 * a date-time (the codec refuses it), or null for a wall-clock time the venue's clock skips.
 */
export function venueValue(v: unknown, timeZone: string): unknown {
  if (typeof v !== 'string') return v;
  const m = WIRE.exec(v.trim());
  if (!m) return v;
  if (m[6]) return v;
  const at = instantOf(timeZone, m[1]!, Number(m[2]) * 60 + Number(m[3]));
  if (at === null) return null;
  return isoInstant(at + Number(m[4] ?? 0) * 1000);
}
