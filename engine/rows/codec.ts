import type { Column } from '../schema/model.js';
import { refuse, type PortableValue } from './types.js';

/**
 * The portable half of the row codec: what a JSON body or a query string may hold for a
 * column, checked against the column's portable type. The dialects (dialects/*.ts) turn the
 * result into driver parameters and turn what the driver returns back into wire values.
 */

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([+-]\d{2}(:?\d{2})?)?$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export const TEXTUAL_TYPES = new Set<Column['type']>(['string', 'text', 'enum', 'uuid']);
/** Types a list may be sorted by and compared with lt…gte. */
export const ORDERABLE_TYPES = new Set<Column['type']>([
  'string',
  'text',
  'enum',
  'uuid',
  'integer',
  'bigint',
  'decimal',
  'float',
  'boolean',
  'date',
  'datetime',
  'time',
]);
/** Types `search` looks in. */
export const SEARCHABLE_TYPES = new Set<Column['type']>(['string', 'text']);

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= last;
}

/**
 * An ISO date-time to naive UTC `YYYY-MM-DD HH:MM:SS[.ffffff]`: an offset is applied, a value
 * without one is taken as it is. Fractions keep up to 6 digits (microseconds, the finest any
 * of the three dialects stores).
 */
export function normaliseDatetime(text: string): string | null {
  const m = DATETIME.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => (v === undefined ? undefined : Number(v))) as number[];
  if (!validDate(y!, mo!, d!) || h! > 23 || mi! > 59 || s! > 59) return null;
  const frac = (m[7] ?? '').slice(0, 6).replace(/0+$/, '');
  let ms = Date.UTC(y!, mo! - 1, d!, h, mi, s);
  const zone = m[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offset = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
    ms -= sign * offset * 60_000;
  }
  const t = new Date(ms);
  const base = `${pad(t.getUTCFullYear(), 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
  return frac ? `${base}.${frac}` : base;
}

function integerOf(v: unknown, path: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && INTEGER.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isSafeInteger(n)) refuse(path, 'Expected an integer.');
  return n;
}

/** No integer column of any dialect holds more: signed 64-bit down, MySQL's BIGINT UNSIGNED up. */
const BIGINT_MIN = -(2n ** 63n);
const BIGINT_MAX = 2n ** 64n - 1n;

function bigintOf(v: unknown, path: string): string {
  let text: string | null = null;
  if (typeof v === 'number' && Number.isSafeInteger(v)) text = String(v);
  else if (typeof v === 'string' && INTEGER.test(v.trim())) text = v.trim().replace(/^\+/, '');
  if (text === null) refuse(path, 'Expected an integer, as a string when beyond 2^53.');
  const n = BigInt(text);
  if (n < BIGINT_MIN || n > BIGINT_MAX) refuse(path, 'Out of range for a 64-bit integer.');
  return text;
}

function decimalOf(v: unknown, path: string): string {
  const s = typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!DECIMAL.test(s)) refuse(path, 'Expected a decimal number, as a string to keep every digit.');
  return s.replace(/^\+/, '');
}

function floatOf(v: unknown, path: string): number {
  const n =
    typeof v === 'number'
      ? v
      : typeof v === 'string' && DECIMAL.test(v.trim())
        ? Number(v)
        : typeof v === 'string' && /^[+-]?\d+(\.\d*)?e[+-]?\d+$/i.test(v.trim())
          ? Number(v)
          : NaN;
  if (!Number.isFinite(n)) refuse(path, 'Expected a number.');
  return n;
}

function dateOf(v: unknown, path: string): string {
  const m = typeof v === 'string' ? DATE.exec(v.trim()) : null;
  if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) refuse(path, 'Expected a date, YYYY-MM-DD.');
  return m[0];
}

function datetimeOf(v: unknown, path: string): string {
  const s = typeof v === 'string' ? normaliseDatetime(v) : null;
  if (s === null) refuse(path, 'Expected a date and time, YYYY-MM-DDTHH:MM:SS with an optional fraction and Z or ±hh:mm.');
  return s;
}

function timeOf(v: unknown, path: string): string {
  if (typeof v !== 'string' || !TIME.test(v.trim())) refuse(path, 'Expected a time, HH:MM:SS.');
  return v.trim();
}

function textOf(c: Column, v: unknown, path: string): string {
  if (typeof v !== 'string') refuse(path, 'Expected a string.');
  if (v.includes('\u0000')) refuse(path, 'Text cannot hold U+0000.');
  if (c.type === 'enum' && c.enumValues && c.enumValues.length > 0 && !c.enumValues.includes(v)) {
    refuse(path, `Expected one of ${c.enumValues.join(', ')}.`);
  }
  if (c.maxLength !== null && [...v].length > c.maxLength) refuse(path, `At most ${c.maxLength} characters.`);
  return v;
}

function binaryOf(v: unknown, path: string): Buffer {
  const b64 = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>).$binary : undefined;
  if (typeof b64 !== 'string' || !BASE64.test(b64)) refuse(path, 'Expected {"$binary": "<base64>"}.');
  return Buffer.from(b64, b64.includes('-') || b64.includes('_') ? 'base64url' : 'base64');
}

/** A wire value from a JSON body (a row's values, a record id's parts) → a portable value. */
export function parseWire(c: Column, v: unknown, path: string): PortableValue {
  if (v === null) return null;
  if (v === undefined) refuse(path, 'Expected a value.');
  switch (c.type) {
    case 'string':
    case 'text':
    case 'enum':
    case 'uuid':
      return textOf(c, v, path);
    case 'integer':
      return integerOf(v, path);
    case 'bigint':
      return bigintOf(v, path);
    case 'decimal':
      return decimalOf(v, path);
    case 'float':
      return floatOf(v, path);
    case 'boolean':
      if (typeof v !== 'boolean') refuse(path, 'Expected true or false.');
      return v;
    case 'date':
      return dateOf(v, path);
    case 'datetime':
      return datetimeOf(v, path);
    case 'time':
      return timeOf(v, path);
    case 'json':
      return JSON.stringify(v);
    case 'binary':
      return binaryOf(v, path);
    case 'other':
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
      // MySQL BIT(n), geometry and the like arrive as bytes.
      if (v !== null && typeof v === 'object' && '$binary' in v) return binaryOf(v, path);
      refuse(path, 'Expected the value in its text form.');
  }
}

/** A query-string value (filters, record ids) → a portable value. JSON, binary and other columns take none. */
export function parseText(c: Column, text: string, path: string): PortableValue {
  switch (c.type) {
    case 'boolean': {
      const t = text.trim().toLowerCase();
      if (t === 'true' || t === '1') return true;
      if (t === 'false' || t === '0') return false;
      refuse(path, 'Expected true or false.');
    }
    case 'json':
    case 'binary':
    case 'other':
      refuse(path, `A ${c.type} column can only be tested for null.`);
    case 'string':
    case 'text':
    case 'enum':
    case 'uuid':
      if (text.includes('\u0000')) refuse(path, 'Text cannot hold U+0000.');
      return text;
    default:
      return parseWire(c, text, path);
  }
}

// ---- helpers the dialects share to build wire values ----

/** `2024-01-02 03:04:05.120000` → `2024-01-02T03:04:05.12`. */
export function isoDatetime(text: string): string {
  const s = text.length > 10 && text[10] === ' ' ? `${text.slice(0, 10)}T${text.slice(11)}` : text;
  return s.replace(/(\.\d*?)0+(?=$|Z|[+-]\d)/, '$1').replace(/\.(?=$|Z|[+-]\d)/, '');
}

export function binaryWire(v: Buffer | Uint8Array): { $binary: string } {
  return { $binary: Buffer.from(v).toString('base64') };
}

/** JSON text as stored → its value; text that is not JSON (SQLite does not check) stays text. */
export function jsonWire(v: unknown): unknown {
  if (typeof v !== 'string') return Buffer.isBuffer(v) ? jsonWire(v.toString('utf8')) : v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

/** A decimal as text with at least `scale` fraction digits (SQLite stores 5.00 as 5). */
export function padScale(text: string, scale: number | null): string {
  if (!scale || !/^-?\d+(\.\d+)?$/.test(text)) return text;
  const [int, frac = ''] = text.split('.');
  return frac.length >= scale ? text : `${int}.${frac.padEnd(scale, '0')}`;
}

export function booleanWire(v: unknown): unknown {
  if (typeof v === 'boolean' || v === null) return v;
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v) !== 0;
  if (Buffer.isBuffer(v)) return v.some((b) => b !== 0);
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (['1', 'true', 't', 'yes', 'y', 'on'].includes(t)) return true;
    if (['0', 'false', 'f', 'no', 'n', 'off', ''].includes(t)) return false;
  }
  return v;
}

/** What every dialect does the same way once its own conversions are done. */
export function commonWire(c: Column, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  // Strings, numbers and booleans are their own wire value (most cells of every list).
  if (typeof v !== 'object' && typeof v !== 'bigint') return v;
  if (typeof v === 'bigint') return c.type === 'integer' || c.type === 'float' ? Number(v) : String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : c.type === 'date' ? v.toISOString().slice(0, 10) : v.toISOString();
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return binaryWire(v);
  return v;
}
