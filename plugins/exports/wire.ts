import type { Column } from '../../kernel/schema/model.js';
import type { SourceDialect } from '../connections/provides.js';

/*
 * Driver values → the wire values kernel/rows documents (README there), so an export carries
 * what GET /data shows. Kept here, small, until kernel/rows ships its codec: then toWire is
 * rowDialect(dialect).toWire and this file goes.
 */

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function wallClock(d: Date, utc: boolean, withTime: boolean): string {
  const y = utc ? d.getUTCFullYear() : d.getFullYear();
  const date = `${pad(y, 4)}-${pad((utc ? d.getUTCMonth() : d.getMonth()) + 1)}-${pad(utc ? d.getUTCDate() : d.getDate())}`;
  if (!withTime) return date;
  const ms = utc ? d.getUTCMilliseconds() : d.getMilliseconds();
  const time = `${pad(utc ? d.getUTCHours() : d.getHours())}:${pad(utc ? d.getUTCMinutes() : d.getMinutes())}:${pad(utc ? d.getUTCSeconds() : d.getSeconds())}`;
  return `${date}T${time}${ms ? `.${pad(ms, 3)}` : ''}`;
}

function parseJsonText(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

export type ToWire = (raw: unknown) => unknown;

/**
 * A converter per column, chosen once: node-postgres builds `date` and `timestamp` values in
 * local time, mysql2 (timezone 'Z') in UTC, so the wall clock is read back the same way.
 */
export function wireOf(dialect: SourceDialect, column: Column): ToWire {
  const withZone = dialect === 'postgres' && /with time zone/.test(column.nativeType);
  const utc = dialect === 'mysql';
  switch (column.type) {
    case 'date':
    case 'datetime':
      return (v) => {
        if (!(v instanceof Date)) return v ?? null;
        if (withZone) return v.toISOString();
        return wallClock(v, utc, column.type === 'datetime');
      };
    case 'boolean':
      return (v) => (v === null || v === undefined ? null : typeof v === 'boolean' ? v : Buffer.isBuffer(v) ? v[0] !== 0 : Number(v) !== 0);
    case 'bigint':
    case 'decimal':
      return (v) => (v === null || v === undefined ? null : String(v));
    case 'json':
      return (v) => (typeof v === 'string' && dialect !== 'postgres' ? parseJsonText(v) : (v ?? null));
    case 'binary':
      return (v) => (Buffer.isBuffer(v) ? { $binary: v.toString('base64') } : (v ?? null));
    default:
      return (v) => {
        if (v === undefined) return null;
        if (Buffer.isBuffer(v)) return { $binary: v.toString('base64') };
        if (v instanceof Date) return v.toISOString();
        return v;
      };
  }
}
