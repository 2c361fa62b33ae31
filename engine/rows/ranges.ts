import type { Column } from '../schema/model.js';
import type { PortableValue, RowsDialectName } from './types.js';

/**
 * What a column's native type holds, checked before the statement: PostgreSQL's out-of-range
 * error (22003) names no column, so a refusal found here can name it on every dialect
 * (DA13). Only bounds the database itself enforces: a SQLite `smallint` holds any 64-bit
 * integer, so there every integer column is 64-bit.
 */

const span = (bits: number, unsigned: boolean): [bigint, bigint] =>
  unsigned ? [0n, (1n << BigInt(bits)) - 1n] : [-(1n << BigInt(bits - 1)), (1n << BigInt(bits - 1)) - 1n];

const BITS: Record<string, number> = {
  tinyint: 8,
  smallint: 16,
  int2: 16,
  smallserial: 16,
  mediumint: 24,
  int: 32,
  integer: 32,
  int4: 32,
  serial: 32,
  bigint: 64,
  int8: 64,
  bigserial: 64,
};

/** The integers the column holds; null where the type is not one we know (a domain: the database decides). */
export function integerRange(d: RowsDialectName, c: Column): [bigint, bigint] | null {
  if (c.type !== 'integer' && c.type !== 'bigint') return null;
  const native = c.nativeType.toLowerCase();
  if (d === 'sqlite') return span(64, false);
  const base = /^[a-z0-9]+/.exec(native)?.[0] ?? '';
  const bits = BITS[base];
  if (bits === undefined) return c.type === 'bigint' ? span(64, false) : null;
  return span(bits, d === 'mysql' && /\bunsigned\b/.test(native));
}

/** Why the value does not fit the column's type, or null when it does (or we cannot tell). */
export function rangeRefusal(d: RowsDialectName, c: Column, v: PortableValue): string | null {
  if (v === null) return null;
  if ((c.type === 'integer' || c.type === 'bigint') && (typeof v === 'number' || typeof v === 'string')) {
    const range = integerRange(d, c);
    if (!range) return null;
    const n = BigInt(v);
    return n < range[0] || n > range[1] ? `Out of range for ${c.nativeType}: ${range[0]} to ${range[1]}.` : null;
  }
  if (c.type === 'decimal' && d !== 'sqlite' && c.precision !== null && typeof v === 'string') {
    // Digits left of the point beyond precision − scale overflow (PostgreSQL 22003, MySQL 1264).
    const scale = c.scale ?? 0;
    const [int = '', frac = ''] = v.replace(/^-/, '').split('.');
    const whole = int.replace(/^0+/, '');
    // Rounded to the scale, 9.995 in numeric(3,2) carries into a new digit.
    const carries = frac.length > scale && frac[scale]! >= '5' && /^9*$/.test(frac.slice(0, scale)) && /^9*$/.test(whole);
    const room = c.precision - scale;
    return whole.length + (carries ? 1 : 0) > room
      ? `Out of range for ${c.nativeType}: at most ${room} digit${room === 1 ? '' : 's'} before the decimal point.`
      : null;
  }
  return null;
}
