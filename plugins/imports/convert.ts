import type { Column } from '../../kernel/schema/model.js';
import type { SourceDialect } from '../connections/provides.js';

/*
 * A value from a file (CSV and XLSX text, JSON values) → what the driver binds for a column,
 * or the reason it cannot go there. Accepts what an export of the same table writes (the
 * kernel/rows wire values). Kept here until kernel/rows ships parseText/bind; then this
 * becomes a call to them.
 */

export class ValueError extends Error {}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}:?\d{2})?$/;
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

function validDate(y: string, m: string, d: string): boolean {
  const dt = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return dt.getUTCFullYear() === Number(y) && dt.getUTCMonth() === Number(m) - 1 && dt.getUTCDate() === Number(d);
}

function datetime(s: string, column: Column, dialect: SourceDialect): string {
  const m = DATETIME.exec(s) ?? fail('not a date-time (YYYY-MM-DD HH:MM[:SS])');
  const [, date, time, zone] = m as unknown as [string, string, string, string | undefined];
  const [y, mo, d] = date.split('-') as [string, string, string];
  if (!validDate(y, mo, d)) fail('not a date that exists');
  if (!zone || (dialect === 'postgres' && /with time zone/.test(column.nativeType))) return dialect === 'sqlite' ? s : `${date} ${time}`;
  // A zone on a column without one: stored as UTC, as kernel/rows does.
  const at = new Date(`${date}T${time.length === 5 ? `${time}:00` : time}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  if (Number.isNaN(at.getTime())) fail('not a date-time');
  return at.toISOString().replace('Z', '').replace('T', dialect === 'sqlite' ? 'T' : ' ');
}

/** One converter per mapped column, chosen once. Throws ValueError with a reason meant for the report. */
export function converterFor(dialect: SourceDialect, column: Column): (v: unknown) => unknown {
  const textual = TEXTUAL.has(column.type);
  const boolParam = (b: boolean) => (dialect === 'postgres' ? b : b ? 1 : 0);
  const convert = (v: unknown): unknown => {
    switch (column.type) {
      case 'string':
      case 'text': {
        const s = text(v);
        if (column.maxLength !== null && [...s].length > column.maxLength) fail(`longer than ${column.maxLength} characters`);
        return s;
      }
      case 'enum': {
        const s = text(v);
        if (column.enumValues && !column.enumValues.includes(s)) fail(`not one of ${column.enumValues.join(', ')}`);
        return s;
      }
      case 'uuid': {
        const s = text(v).trim();
        if (!UUID.test(s)) fail('not a UUID');
        return s;
      }
      case 'integer': {
        const n = typeof v === 'number' ? v : INTEGER.test(text(v).trim()) ? Number(text(v).trim()) : NaN;
        if (!Number.isSafeInteger(n)) fail('not a whole number');
        return n;
      }
      case 'bigint': {
        if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
        const s = text(v).trim();
        if (!INTEGER.test(s)) fail('not a whole number');
        return s;
      }
      case 'decimal': {
        if (typeof v === 'number' && Number.isFinite(v)) return String(v);
        const s = text(v).trim();
        if (!DECIMAL.test(s)) fail('not a number');
        return s;
      }
      case 'float': {
        const n = typeof v === 'number' ? v : DECIMAL.test(text(v).trim()) ? Number(text(v).trim()) : NaN;
        if (!Number.isFinite(n)) fail('not a number');
        return n;
      }
      case 'boolean': {
        if (typeof v === 'boolean') return boolParam(v);
        const s = text(v).trim().toLowerCase();
        if (TRUE.has(s)) return boolParam(true);
        if (FALSE.has(s)) return boolParam(false);
        return fail('not a boolean (true/false, yes/no, 1/0)');
      }
      case 'date': {
        const s = text(v).trim();
        const m = DATE.exec(s) ?? fail('not a date (YYYY-MM-DD)');
        if (!validDate(m[1]!, m[2]!, m[3]!)) fail('not a date that exists');
        return s;
      }
      case 'datetime':
        return datetime(text(v).trim(), column, dialect);
      case 'time': {
        const s = text(v).trim();
        if (!TIME.test(s)) fail('not a time (HH:MM[:SS])');
        return s;
      }
      case 'json': {
        if (typeof v !== 'string') return JSON.stringify(v);
        try {
          JSON.parse(v);
        } catch {
          fail('not valid JSON');
        }
        return v;
      }
      case 'binary': {
        const s = text(v).trim();
        if (!BASE64.test(s) || s.length % 4 !== 0) fail('not base64');
        return Buffer.from(s, 'base64');
      }
      default:
        return text(v);
    }
  };
  return (v) => {
    // An empty cell is NULL, except in a text column that cannot be NULL: there it is ''.
    if (v === null || v === undefined || (v === '' && !(textual && !column.nullable))) return null;
    return convert(v);
  };
}
