import { parseWire, rangeRefusal, type PortableValue, type RowsDialectName } from '../../engine/rows/index.js';
import type { Column } from '../../engine/schema/model.js';
import type { EffectiveTable } from '../schema/provides.js';
import { writeRefused, type WriteRefusal } from './errors.js';

/**
 * The most characters a public write puts in a text column the database does not bound itself
 * (TEXT, unbounded VARCHAR): an anonymous caller should not store megabytes per row.
 */
export const PUBLIC_TEXT_MAX = 10_000;

/** The length a public write may give a column: its own, else PUBLIC_TEXT_MAX for free text. */
export function publicMaxLength(c: Column): number | null {
  if (c.maxLength !== null) return c.maxLength;
  return c.type === 'string' || c.type === 'text' ? PUBLIC_TEXT_MAX : null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FORMATTED = new Set<Column['type']>(['date', 'datetime', 'time', 'uuid', 'binary', 'decimal', 'bigint']);

/** Why a value does not fit its column, in the seed's reasons; null when it fits. */
function refusal(c: Column, v: unknown): { reason: WriteRefusal; extra?: Record<string, unknown> } | null {
  if (v === null) return c.nullable ? null : { reason: 'required' };
  if (typeof v === 'string') {
    if (v.includes('\u0000')) return { reason: 'invalid-character' };
    const max = publicMaxLength(c);
    // Counted in code points; the length in UTF-16 units bounds it from above, so most values skip the count.
    if (max !== null && v.length > max && ['string', 'text', 'enum', 'uuid'].includes(c.type) && [...v].length > max)
      return { reason: 'too-long', extra: { maxLength: max } };
    if (c.type === 'uuid' && !UUID.test(v)) return { reason: 'format' };
    if (c.type === 'enum' && c.enumValues?.length && !c.enumValues.includes(v)) return { reason: 'not-allowed', extra: { allowed: c.enumValues } };
  }
  return null;
}

/** One value checked against its column: PUBLIC_WRITE_REFUSED with the column and the reason. */
export function columnValue(c: Column, v: unknown): PortableValue {
  const r = refusal(c, v);
  if (r) throw writeRefused(c.name, r.reason, r.extra);
  try {
    return parseWire(c, v, `values.${c.name}`);
  } catch {
    throw writeRefused(c.name, FORMATTED.has(c.type) && typeof v === 'string' ? 'format' : 'type');
  }
}

/**
 * Values beyond what their column's type holds, refused before the statement: PostgreSQL's own
 * refusal names no column (DA13).
 */
export function checkRanges(d: RowsDialectName, table: EffectiveTable, values: ReadonlyMap<string, PortableValue>): void {
  for (const [name, v] of values) {
    const c = table.columns.find((x) => x.name === name);
    if (c && rangeRefusal(d, c, v)) throw writeRefused(name, 'out-of-range');
  }
}

/** A column the database fills by itself when an insert leaves it out. */
export function fillsItself(c: Column): boolean {
  return c.nullable || c.default !== null || c.autoIncrement || c.generated !== null;
}

export interface ValueRules {
  table: EffectiveTable;
  writable: ReadonlySet<string>;
  /** Columns the caller may not change here even if writable (a customer's identity). */
  fixed?: ReadonlySet<string>;
}

/**
 * The caller's `values` → checked assignments, in the order given. A column that is not
 * writable is refused (as `not-writable`, whether it exists or not: the answer must not tell
 * a hidden column from a missing one).
 */
export function parseValues(input: Record<string, unknown>, rules: ValueRules): Map<string, PortableValue> {
  const out = new Map<string, PortableValue>();
  for (const [name, v] of Object.entries(input)) {
    if (rules.fixed?.has(name)) throw writeRefused(name, 'identity');
    const c = rules.writable.has(name) ? rules.table.columns.find((x) => x.name === name) : undefined;
    if (!c) throw writeRefused(name, 'not-writable');
    out.set(name, columnValue(c, v));
  }
  return out;
}
