/**
 * Time zones of time buckets: an IANA name, `UTC`, or a fixed offset `±HH:MM`. The database
 * truncates in the zone; the bucket's local start (`YYYY-MM-DD HH:MM:SS`, as every dialect
 * answers it) becomes an instant here, and SQLite, which knows no zones, gets the zone's offsets
 * between two instants from here (decisions WD3).
 */

export type Zone = { kind: 'utc' } | { kind: 'fixed'; offsetMinutes: number; text: string } | { kind: 'named'; name: string };

const FIXED = /^([+-])(\d{2}):(\d{2})$/;

/** The zone, or null when it is neither UTC, a fixed offset up to ±14:00, nor a zone Node knows. */
export function parseZone(text: string): Zone | null {
  if (text === 'UTC' || text === 'Etc/UTC' || text === '+00:00' || text === 'Z') return { kind: 'utc' };
  const m = FIXED.exec(text);
  if (m) {
    const minutes = Number(m[2]) * 60 + Number(m[3]);
    if (Number(m[3]) > 59 || minutes > 14 * 60) return null;
    return minutes === 0 ? { kind: 'utc' } : { kind: 'fixed', offsetMinutes: m[1] === '-' ? -minutes : minutes, text };
  }
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(text)) return null;
  try {
    formatter(text);
    return { kind: 'named', name: text };
  } catch {
    return null;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's offset from UTC at `instant` (ms), in ms. */
export function offsetAt(zone: Zone, instant: number): number {
  if (zone.kind === 'utc') return 0;
  if (zone.kind === 'fixed') return zone.offsetMinutes * 60_000;
  const parts: Record<string, number> = {};
  for (const p of formatter(zone.name).formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const local = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return local - Math.floor(instant / 1000) * 1000;
}

const LABEL = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2}))?/;
const DAY = 86_400_000;

/**
 * The instant a local wall-clock time (`YYYY-MM-DD[ HH:MM:SS]`) names in the zone. A time the
 * clocks pass twice (autumn) is its first instant; one they skip (spring) is read with the offset
 * before the change, which lands just after it.
 */
export function localToInstant(zone: Zone, label: string): number {
  const m = LABEL.exec(label);
  if (!m) throw new Error(`not a local time: ${label}`);
  const local = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  if (zone.kind !== 'named') return local - offsetAt(zone, local);
  const before = offsetAt(zone, local - DAY);
  const after = offsetAt(zone, local + DAY);
  const fits = [local - before, local - after].filter((t) => offsetAt(zone, t) === local - t).sort((a, b) => a - b);
  return fits[0] ?? local - before;
}

/** A stretch of time with one offset: from `from` (ms, inclusive) on, until the next one's `from`. */
export interface OffsetSpan {
  from: number;
  offsetMs: number;
}

/**
 * The zone's offsets between two instants, first span starting at `from`. Zones change their
 * offset at most a few times a year: a probe every 7 days, then a bisection to the second, finds
 * each change (two changes within 7 days are not a real zone's).
 */
export function offsetSpans(zone: Zone, from: number, to: number): OffsetSpan[] {
  const spans: OffsetSpan[] = [{ from, offsetMs: offsetAt(zone, from) }];
  if (zone.kind !== 'named') return spans;
  const STEP = 7 * DAY;
  let t = from;
  let current = spans[0]!.offsetMs;
  while (t < to) {
    const next = Math.min(t + STEP, to);
    const o = offsetAt(zone, next);
    if (o !== current) {
      let lo = t;
      let hi = next;
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (offsetAt(zone, mid) === current) lo = mid;
        else hi = mid;
      }
      spans.push({ from: hi, offsetMs: o });
      current = o;
    }
    t = next;
  }
  return spans;
}
