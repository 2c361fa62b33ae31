/**
 * Wall-clock arithmetic on a venue's IANA time zone with nothing but Intl, so slot times stay
 * right across daylight-saving changes without a dependency.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export interface WallClock {
  /** YYYY-MM-DD on the venue's calendar. */
  date: string;
  /** Minutes since local midnight. */
  minutes: number;
}

function fields(timeZone: string, at: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(at))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** Local time minus UTC at an instant, in ms (positive east of Greenwich). */
export function offsetAt(timeZone: string, at: number): number {
  const whole = Math.floor(at / 1000) * 1000;
  const f = fields(timeZone, whole);
  return Date.UTC(f.year!, f.month! - 1, f.day!, f.hour!, f.minute!, f.second!) - whole;
}

const pad = (n: number) => String(n).padStart(2, '0');

export function wallClock(timeZone: string, at: number): WallClock {
  const f = fields(timeZone, at);
  return { date: `${f.year}-${pad(f.month!)}-${pad(f.day!)}`, minutes: f.hour! * 60 + f.minute! };
}

/** `HH:MM` of minutes since midnight (wrapping past 24 h). */
export function clockLabel(minutes: number): string {
  const m = ((minutes % 1440) + 1440) % 1440;
  return `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
}

/** Parses `HH:MM` (00:00..24:00) into minutes; null when malformed. */
export function parseClock(value: string): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(value);
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && min !== 0)) return null;
  return h * 60 + min;
}

/** Parses YYYY-MM-DD into UTC midnight of that calendar day; null when it is no real date. */
export function parseDate(value: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const d = new Date(t);
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]) ? t : null;
}

export function addDays(date: string, days: number): string {
  const t = parseDate(date)! + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * The instant of a wall-clock time (minutes may pass 24 h into the next day). Null when the
 * time does not exist (skipped by a spring-forward change); the earlier instant when it
 * exists twice (a fall-back change), so a time always names one instant.
 */
export function instantOf(timeZone: string, date: string, minutes: number): number | null {
  const day = parseDate(date);
  if (day === null) return null;
  const asUtc = day + minutes * 60_000;
  // The offsets either side of the time cover both of a change's offsets.
  const offsets = new Set([offsetAt(timeZone, asUtc - 86_400_000 / 2), offsetAt(timeZone, asUtc), offsetAt(timeZone, asUtc + 86_400_000 / 2)]);
  const hits = [...offsets].map((o) => asUtc - o).filter((t) => offsetAt(timeZone, t) === asUtc - t);
  return hits.length ? Math.min(...hits) : null;
}

const WEEK_DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type WeekDayName = (typeof WEEK_DAYS)[number];

export function weekDay(date: string): WeekDayName {
  return WEEK_DAYS[new Date(parseDate(date)!).getUTCDay()]!;
}
