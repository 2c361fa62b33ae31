import type { Schemas } from '../api/types';

/**
 * How a stored value reads to a person, by its column's portable type (engine/schema/model.ts):
 * pure functions from a wire value (what GET /data answers) to text, the exact stored value
 * beside it, and how it is drawn. The components in Value.tsx draw the result; the grid, the
 * row page, the audit diff and the export preview all go through here (decision DB44).
 */

/** What a value needs of its column: the portable type, the database's own spelling, its display settings. */
export type ValueColumn = Pick<Schemas['EffectiveSchemaColumn'], 'name' | 'type' | 'nativeType' | 'scale'> & {
  display?: Partial<Pick<Schemas['EffectiveSchemaColumn']['display'], 'format' | 'label'>>;
};

/** The person's reading conventions: a BCP 47 locale (`en-GB`) and an IANA time zone (`Europe/Berlin`). */
export interface ValueContext {
  locale: string;
  timeZone: string;
}

export type ValueKind = 'null' | 'text' | 'number' | 'datetime' | 'date' | 'time' | 'boolean' | 'enum' | 'json' | 'binary' | 'uuid';

export interface Shown {
  kind: ValueKind;
  /** What a person reads. */
  text: string;
  /** The value exactly as stored (the wire form), for the tooltip and for copying. */
  exact: string;
  /** Numbers line up on their last digit. */
  alignEnd: boolean;
}

const NUMBER_TYPES = new Set(['integer', 'bigint', 'decimal', 'float']);
export const isNumberColumn = (c: Pick<ValueColumn, 'type'>) => NUMBER_TYPES.has(c.type);

/**
 * Intl's formatters cost tens of µs to make and a scrolling grid draws hundreds of values a
 * frame: one per locale and options, made once (bench/grid.ts, scrolling).
 */
const made = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat>();

function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `d|${locale}|${JSON.stringify(options)}`;
  let format = made.get(key) as Intl.DateTimeFormat | undefined;
  if (!format) made.set(key, (format = new Intl.DateTimeFormat(locale, options)));
  return format;
}

function numberFormat(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `n|${locale}|${JSON.stringify(options)}`;
  let format = made.get(key) as Intl.NumberFormat | undefined;
  if (!format) made.set(key, (format = new Intl.NumberFormat(locale, options)));
  return format;
}

const checkedLocales = new Map<string, string>();

/** Intl throws on a locale or zone it does not know; the reading then falls back rather than failing the screen. */
function safeLocale(locale: string): string {
  let safe = checkedLocales.get(locale);
  if (safe === undefined) {
    try {
      safe = Intl.getCanonicalLocales(locale.replace(/_/g, '-'))[0] ?? 'en';
    } catch {
      safe = 'en';
    }
    checkedLocales.set(locale, safe);
  }
  return safe;
}

function safeZone(timeZone: string): string {
  try {
    dateTimeFormat('en', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

const numberParts = new Map<string, { group: string; decimal: string; minus: string; digits: string[] }>();

/** The locale's decimal sign, minus sign and digits (Arabic-Indic in some locales), read once. */
function partsOf(locale: string) {
  let parts = numberParts.get(locale);
  if (!parts) {
    const format = new Intl.NumberFormat(locale, { useGrouping: true });
    const of = (n: number, type: string) => format.formatToParts(n).find((p) => p.type === type)?.value;
    parts = {
      group: of(11111, 'group') ?? ',',
      decimal: of(1.5, 'decimal') ?? '.',
      minus: of(-1, 'minusSign') ?? '-',
      digits: Array.from({ length: 10 }, (_, d) => format.format(d)),
    };
    numberParts.set(locale, parts);
  }
  return parts;
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/**
 * A decimal given as text, grouped in the locale without ever becoming a float: the integer
 * part through BigInt (exact, and Intl groups it the locale's way, 12,34,567 in en-IN), the
 * fraction digit by digit. Text that is not a plain decimal is answered as it is.
 */
export function formatDecimalText(text: string, locale: string): string {
  const m = DECIMAL_TEXT.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return text;
  const loc = safeLocale(locale);
  const parts = partsOf(loc);
  const int = numberFormat(loc, { useGrouping: true }).format(BigInt(m[2] || '0'));
  const frac = m[3] ? parts.decimal + [...m[3]].map((d) => parts.digits[Number(d)]).join('') : '';
  const negative = m[1] === '-' && /[1-9]/.test(`${m[2]}${m[3] ?? ''}`);
  return `${negative ? parts.minus : ''}${int}${frac}`;
}

/**
 * A JSON number (an integer or float column): its shortest round-trip text, grouped exactly as
 * a decimal; what that text cannot show plainly (1e21, NaN) goes through Intl as it is.
 */
export function formatNumber(n: number, locale: string): string {
  const text = String(n);
  return DECIMAL_TEXT.test(text) ? formatDecimalText(text, locale) : numberFormat(safeLocale(locale), {}).format(n);
}

const WIRE_DATETIME = /^(\d{4,})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Whether the column stores an instant (PostgreSQL timestamptz), whose wire form ends in Z. */
export const storesInstant = (c: Pick<ValueColumn, 'nativeType'>) => /with time zone|timestamptz/i.test(c.nativeType);

/**
 * A date-time as the wire gives it. An instant (a `Z` or an offset) is shown in the person's time
 * zone with the zone's short name; a wall time without zone (a plain `timestamp`, SQLite text)
 * is shown as it was written, only in the locale's order and words. Seconds are shown, the
 * fraction is in the exact value.
 */
export function formatDatetime(wire: string, ctx: ValueContext): string {
  const m = WIRE_DATETIME.exec(wire.trim());
  if (!m) return wire; // infinity, or text SQLite kept as it came
  const [, y, mo, d, h, mi, s = '0', frac = '', zone] = m;
  const ms = Math.floor(Number(`0${frac || '.0'}`) * 1000);
  let at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    at -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60_000;
  }
  if (!Number.isFinite(at)) return wire;
  const instant = zone !== undefined;
  return dateTimeFormat(safeLocale(ctx.locale), {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    timeZone: instant ? safeZone(ctx.timeZone) : 'UTC',
    ...(instant ? { timeZoneName: 'short' as const } : {}),
  }).format(at);
}

/** A calendar date (`2026-11-27`): the same day in every zone. */
export function formatDate(wire: string, locale: string): string {
  const m = /^(\d{4,})-(\d{2})-(\d{2})$/.exec(wire.trim());
  if (!m) return wire;
  const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isFinite(at) ? dateTimeFormat(safeLocale(locale), { dateStyle: 'medium', timeZone: 'UTC' }).format(at) : wire;
}

/** A time of day (`14:05:09`), in the locale's clock (14:05:09 or 2:05:09 PM). */
export function formatTime(wire: string, locale: string): string {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?/.exec(wire.trim());
  if (!m || Number(m[1]) > 23) return wire;
  const at = Date.UTC(1970, 0, 1, Number(m[1]), Number(m[2]), Number(m[3] ?? 0));
  return dateTimeFormat(safeLocale(locale), { hour: 'numeric', minute: '2-digit', second: '2-digit', timeZone: 'UTC' }).format(at);
}

/** A binary value on the wire: `{"$binary": "<base64>"}`. */
export function binaryOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const b64 = (value as Record<string, unknown>).$binary;
  return typeof b64 === 'string' ? b64 : null;
}

/** How many bytes a base64 (or base64url) text holds, counted from its length. */
export function base64Size(b64: string): number {
  const clean = b64.replace(/=+$/, '');
  return Math.floor((clean.length * 3) / 4);
}

/** A size as a person reads it: 512 byte, 1.5 kB, 3.2 MB (decimal units, the locale's digits). */
export function formatBytes(bytes: number, locale: string): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;
  let unit = 0;
  let n = bytes;
  while (n >= 1000 && unit < units.length - 1) {
    n /= 1000;
    unit += 1;
  }
  return numberFormat(safeLocale(locale), {
    style: 'unit',
    unit: units[unit],
    unitDisplay: unit === 0 ? 'long' : 'short',
    maximumFractionDigits: 1,
  }).format(n);
}

/** A UUID's first group, enough to tell rows apart on a screen; the whole one is the exact value. */
export function shortUuid(text: string): string {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(text) ? `${text.slice(0, 8)}…` : text;
}

/** A JSON value in one short line: the text up to `max` characters. */
export function jsonPreview(value: unknown, max = 60): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The value exactly as the API gave it, as text: what a tooltip shows and a copy takes. */
export function exactText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  const b64 = binaryOf(value);
  if (b64 !== null) return b64;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A value of `column` as a person reads it. `yesNo` names the two booleans (the catalogue's words). */
export function showValue(column: ValueColumn, value: unknown, ctx: ValueContext, yesNo: { yes: string; no: string }): Shown {
  const exact = exactText(value);
  const plain = (kind: ValueKind, text: string, alignEnd = false): Shown => ({ kind, text, exact, alignEnd });
  if (value === null || value === undefined) return plain('null', '');
  switch (column.type) {
    case 'integer':
    case 'bigint':
    case 'decimal':
    case 'float': {
      const text = typeof value === 'number' ? formatNumber(value, ctx.locale) : typeof value === 'string' ? formatDecimalText(value, ctx.locale) : exact;
      return plain('number', column.display?.format === 'percent' ? `${text} %` : text, true);
    }
    case 'boolean':
      return typeof value === 'boolean' ? plain('boolean', value ? yesNo.yes : yesNo.no) : plain('text', exact);
    case 'datetime':
      // SQLite keeps a timestamptz column's value as UTC text without the Z (engine/rows/codec.ts).
      if (typeof value === 'string' && storesInstant(column) && !/(z|[+-]\d{2}(:?\d{2})?)$/i.test(value))
        return plain('datetime', formatDatetime(`${value}Z`, ctx));
      return plain('datetime', typeof value === 'string' ? formatDatetime(value, ctx) : exact);
    case 'date':
      return plain('date', typeof value === 'string' ? formatDate(value, ctx.locale) : exact);
    case 'time':
      return plain('time', typeof value === 'string' ? formatTime(value, ctx.locale) : exact);
    case 'enum':
      return plain('enum', exact);
    case 'json':
      return plain('json', jsonPreview(value));
    case 'uuid':
      return plain('uuid', shortUuid(exact));
    case 'binary':
      return binaryOf(value) !== null ? plain('binary', formatBytes(base64Size(binaryOf(value)!), ctx.locale)) : plain('text', exact);
    default:
      // MySQL BIT(n), geometry and the like arrive as bytes.
      if (binaryOf(value) !== null) return plain('binary', formatBytes(base64Size(binaryOf(value)!), ctx.locale));
      return plain('text', exact);
  }
}

/** Every IANA zone this browser knows, with UTC, the browser's own and `extra` (a stored choice) kept in, sorted. */
export function knownTimeZones(extra = ''): string[] {
  const all = new Set(Intl.supportedValuesOf('timeZone'));
  all.add('UTC');
  all.add(browserTimeZone());
  if (extra) all.add(extra);
  return [...all].sort();
}

/** The browser's own zone, the default until a person's preferences name one. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}
