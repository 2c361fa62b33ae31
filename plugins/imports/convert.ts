import type { Column } from '../../engine/schema/model.js';
import type { SourceDialect } from '../connections/provides.js';

/*
 * A value from a file (CSV and XLSX text, JSON values) → what the driver binds for a column,
 * or the reason it cannot go there. Accepts what an export of the same table writes (the
 * engine/rows wire values). Kept here until engine/rows ships parseText/bind; then this
 * becomes a call to them.
 */

export class ValueError extends Error {}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^((\d{4})-(\d{2})-(\d{2}))[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}:?\d{2})?$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const TRUE = new Set(['true', 't', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'f', 'no', 'n', '0']);
const TEXTUAL = new Set(['string', 'text', 'enum', 'uuid', 'other']);

const fail = (message: string): never => {
  throw new ValueError(message);
};

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether the day exists (no Date object: this runs for every date of a file). Years before 100 are refused, as they were when this went through Date.UTC. */
function validDate(y: string, m: string, d: string): boolean {
  return validDay(Number(y), Number(m), Number(d));
}

function validDay(year: number, month: number, day: number): boolean {
  if (year < 100 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS[month - 1]!);
}

/** The number written by the digits of s[from, to), or -1 when one is not a digit. */
function digitsAt(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * `YYYY-MM-DD HH:MM:SS` (or with a T), what most files hold, checked without a regular
 * expression or substrings: the same verdict as DATETIME, far fewer allocations per cell.
 * Null when the text has another shape (the regular expression then decides).
 */
function plainDatetime(s: string, dialect: SourceDialect): string | null {
  if (s.length !== 19) return null;
  const sep = s.charCodeAt(10);
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || (sep !== 32 && sep !== 84) || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return null;
  const year = digitsAt(s, 0, 4);
  const month = digitsAt(s, 5, 7);
  const day = digitsAt(s, 8, 10);
  if (year < 0 || month < 0 || day < 0 || digitsAt(s, 11, 13) < 0 || digitsAt(s, 14, 16) < 0 || digitsAt(s, 17, 19) < 0) return null;
  if (!validDay(year, month, day)) fail('not a date that exists');
  return dialect === 'sqlite' || sep === 32 ? s : `${s.slice(0, 10)} ${s.slice(11)}`;
}

/** Text → the date-time the column takes; `keepsZone`: a PostgreSQL `with time zone` column, which reads the offset itself. */
function datetime(s: string, keepsZone: boolean, dialect: SourceDialect): string {
  const m = DATETIME.exec(s) ?? fail('not a date-time (YYYY-MM-DD HH:MM[:SS])');
  const [, date, y, mo, d, time, zone] = m as unknown as [string, string, string, string, string, string, string | undefined];
  if (!validDate(y, mo, d)) fail('not a date that exists');
  if (!zone) return dialect === 'sqlite' ? s : `${date} ${time}`;
  // The column reads the offset itself (it used to be dropped here, shifting the instant by the session's zone).
  if (keepsZone) return `${date} ${time}${zone}`;
  // A zone on a column without one: stored as UTC, as engine/rows does.
  const at = new Date(`${date}T${time.length === 5 ? `${time}:00` : time}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  if (Number.isNaN(at.getTime())) fail('not a date-time');
  return at
    .toISOString()
    .replace('Z', '')
    .replace('T', dialect === 'sqlite' ? 'T' : ' ');
}

type Convert = (v: unknown) => unknown;

/** The conversion for the column's type, chosen once: it runs for every cell of the column. */
function typed(dialect: SourceDialect, column: Column, structured: boolean): Convert {
  const boolParam = (b: boolean) => (dialect === 'postgres' ? b : b ? 1 : 0);
  const yes = boolParam(true);
  const no = boolParam(false);
  switch (column.type) {
    case 'string':
    case 'text': {
      const max = column.maxLength;
      if (max === null) return text;
      return (v) => {
        const s = text(v);
        // Counted in characters (code points); a string no longer than `max` in UTF-16 units cannot be over.
        if (s.length > max && [...s].length > max) fail(`longer than ${max} characters`);
        return s;
      };
    }
    case 'enum':
      return (v) => {
        const s = text(v);
        if (column.enumValues && !column.enumValues.includes(s)) fail(`not one of ${column.enumValues.join(', ')}`);
        return s;
      };
    case 'uuid':
      return (v) => {
        const s = text(v).trim();
        if (!UUID.test(s)) fail('not a UUID');
        return s;
      };
    case 'integer':
      return (v) => {
        let n = NaN;
        if (typeof v === 'number') n = v;
        else {
          const s = text(v).trim();
          if (INTEGER.test(s)) n = Number(s);
        }
        if (!Number.isSafeInteger(n)) fail('not a whole number');
        return n;
      };
    case 'bigint':
      return (v) => {
        if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
        const s = text(v).trim();
        if (!INTEGER.test(s)) fail('not a whole number');
        return s;
      };
    case 'decimal':
      return (v) => {
        if (typeof v === 'number' && Number.isFinite(v)) return String(v);
        const s = text(v).trim();
        if (!DECIMAL.test(s)) fail('not a number');
        return s;
      };
    case 'float':
      return (v) => {
        let n = NaN;
        if (typeof v === 'number') n = v;
        else {
          const s = text(v).trim();
          if (DECIMAL.test(s)) n = Number(s);
        }
        if (!Number.isFinite(n)) fail('not a number');
        return n;
      };
    case 'boolean':
      return (v) => {
        if (typeof v === 'boolean') return v ? yes : no;
        const s = text(v).trim().toLowerCase();
        if (TRUE.has(s)) return yes;
        if (FALSE.has(s)) return no;
        return fail('not a boolean (true/false, yes/no, 1/0)');
      };
    case 'date':
      return (v) => {
        const s = text(v).trim();
        const m = DATE.exec(s) ?? fail('not a date (YYYY-MM-DD)');
        if (!validDate(m[1]!, m[2]!, m[3]!)) fail('not a date that exists');
        return s;
      };
    case 'datetime': {
      const keepsZone = dialect === 'postgres' && /with time zone/.test(column.nativeType);
      return (v) => {
        const s = text(v).trim();
        return plainDatetime(s, dialect) ?? datetime(s, keepsZone, dialect);
      };
    }
    case 'time':
      return (v) => {
        const s = text(v).trim();
        if (!TIME.test(s)) fail('not a time (HH:MM[:SS])');
        return s;
      };
    case 'json':
      // A JSON file carries the column's value itself: a JSON string is a string value (our own
      // export writes one so), never JSON text to parse. Text files carry JSON text.
      if (structured) return (v) => JSON.stringify(v);
      return (v) => {
        if (typeof v !== 'string') return JSON.stringify(v);
        try {
          JSON.parse(v);
        } catch {
          fail('not valid JSON');
        }
        return v;
      };
    case 'binary':
      return (v) => {
        const s = text(v).trim();
        if (!BASE64.test(s) || s.length % 4 !== 0) fail('not base64');
        return Buffer.from(s, 'base64');
      };
    default:
      return text;
  }
}

/**
 * One converter per mapped column, chosen once. Throws ValueError with a reason meant for the
 * report. `structured`: the values come from a JSON file, which spells NULL (`null`) apart from
 * '' (`""`); in CSV (and XLSX) both are an empty cell.
 */
export function converterFor(dialect: SourceDialect, column: Column, structured = false): Convert {
  const convert = typed(dialect, column, structured);
  // An empty cell is NULL, except in a text column that cannot be NULL, or one a JSON file fills: there it is ''.
  const emptyIsNull = !(TEXTUAL.has(column.type) && (!column.nullable || structured));
  return (v) => {
    if (v === null || v === undefined || (v === '' && emptyIsNull)) return null;
    return convert(v);
  };
}

export interface MappedColumn {
  /** Where the column's value is in a record's cells. */
  at: number;
  column: Column;
}

/**
 * A record's cells → the values of the mapped columns (USE_DEFAULT where an empty cell leaves a
 * NOT NULL column to its default), or the reason the record is refused. The converters are
 * chosen once; this runs for every record.
 */
export function recordConverter<D>(
  dialect: SourceDialect,
  mapped: MappedColumn[],
  useDefault: D,
  structured = false,
): (cells: readonly unknown[]) => unknown[] | string {
  const converters = mapped.map(({ at, column }) => ({
    at,
    name: column.name,
    convert: converterFor(dialect, column, structured),
    // An empty cell in a NOT NULL column with a default takes the default.
    defaultable: !column.nullable && (column.default !== null || column.autoIncrement),
  }));
  return (cells) => {
    const values: unknown[] = new Array(converters.length);
    for (let i = 0; i < converters.length; i++) {
      const c = converters[i]!;
      try {
        const v = c.convert(cells[c.at]);
        values[i] = v === null && c.defaultable ? useDefault : v;
      } catch (err) {
        if (!(err instanceof ValueError)) throw err;
        return `${c.name}: ${err.message}`;
      }
    }
    return values;
  };
}
