import { randomUUID } from 'node:crypto';
import { AppError } from '../../kernel/api.js';
import { keysToGive, primaryKeyColumns, type PortableValue, type RowDialect } from '../../engine/rows/index.js';
import type { Column } from '../../engine/schema/model.js';
import type { Opened } from './access.js';
import { bookingCode, bookingTarget, type BookingTarget } from './booking/guards.js';
import { isSingleAddress } from './booking/address.js';
import { instantOfWire, venueValue } from './booking/times.js';
import { writeRefused } from './errors.js';
import { checkRanges, columnValue, fillsItself, parseValues } from './values.js';

export type Assignments = Map<string, PortableValue>;

export interface InsertPlan {
  kind: 'insert';
  values: Assignments;
  booking: BookingTarget | null;
}

export interface UpdatePlan {
  kind: 'update';
  key: PortableValue[];
  values: Assignments;
  /** Set when the write moves a booking or changes its party: capacity is checked again. */
  rebook: boolean;
}

function column(opened: Opened, name: string): Column {
  const c = opened.table.columns.find((x) => x.name === name);
  // The control plane withdraws endpoints whose rules name missing columns; meeting one is a bug.
  if (!c) throw new AppError('INTERNAL', { cause: new Error(`public endpoint ${opened.endpoint.ref} names missing column ${name}`) });
  return c;
}

/**
 * Columns the caller may set: the endpoint's writable ones that it lists, that exist, are not
 * computed and not secret. A `sensitive` column can be one: written (a guest's e-mail), never read.
 */
export function writableColumns(opened: Opened): Set<string> {
  // `columns` leaves sensitive ones out (they are never read), so they are let in by name (PA9).
  const listed = new Set([...opened.endpoint.columns, ...opened.endpoint.sensitive]);
  return new Set(
    opened.endpoint.writable.filter((n) => listed.has(n) && opened.table.columns.some((c) => c.name === n && c.generated === null && !c.display.secret)),
  );
}

/** A customer may not rewrite the columns that make the row theirs. */
function fixedColumns(opened: Opened): Set<string> {
  return new Set(opened.scope.identity ? Object.keys(opened.scope.identity) : []);
}

/** Booking times without a zone are read on the venue's clock (see booking/times.ts). */
function withVenueTimes(opened: Opened, input: Record<string, unknown>): Record<string, unknown> {
  const rules = opened.endpoint.booking;
  if (!rules || !(rules.timeColumn in input)) return input;
  const v = venueValue(input[rules.timeColumn], opened.endpoint.timeZone);
  if (v === null && input[rules.timeColumn] !== null) throw writeRefused(rules.timeColumn, 'not-a-slot');
  return { ...input, [rules.timeColumn]: v };
}

/**
 * A booking's e-mail column takes one address: the confirmation goes to what it holds, and a
 * list would send it to every address in it.
 */
function checkBookingEmail(opened: Opened, values: Assignments): void {
  const name = opened.endpoint.booking?.emailColumn;
  if (!name || !values.has(name)) return;
  const v = values.get(name);
  if (v !== null && !isSingleAddress(v)) throw writeRefused(name, 'format');
}

/**
 * A booking time about to be written → its instant: the codec's naive-UTC form for a date-time
 * column, or the text a text column will hold (with `Z` or an offset).
 */
export function portableInstant(v: PortableValue | undefined): number | null {
  return instantOfWire(v);
}

function partyOf(opened: Opened, values: Assignments): number {
  const name = opened.endpoint.booking?.partyColumn;
  if (!name) return 1;
  if (values.has(name)) return Number(values.get(name));
  const fallback = Number(column(opened, name).default);
  return Number.isSafeInteger(fallback) && fallback > 0 ? fallback : 1;
}

/**
 * A new row: the caller's writable values, the customer's identity, the endpoint's `defaults`,
 * the values its `eq` default filters demand, a key the server chooses, and a booking code;
 * then every column the database cannot fill must be there (`required`).
 */
export function planInsert(opened: Opened, d: RowDialect, input: Record<string, unknown>, now: number): InsertPlan {
  const { endpoint } = opened;
  const values = parseValues(withVenueTimes(opened, input), { table: opened.table, writable: writableColumns(opened), fixed: fixedColumns(opened) });
  checkBookingEmail(opened, values);
  for (const [name, v] of Object.entries(opened.scope.identity ?? {})) values.set(name, columnValue(column(opened, name), v));
  for (const [name, v] of Object.entries(endpoint.defaults)) if (!values.has(name)) values.set(name, columnValue(column(opened, name), v));
  for (const f of endpoint.filters) if (f.op === 'eq' && !values.has(f.column)) values.set(f.column, columnValue(column(opened, f.column), f.value));
  const pk = primaryKeyColumns(opened.table);
  if (endpoint.keyFill === 'uuid' && pk.length === 1 && !values.has(pk[0]!.name)) values.set(pk[0]!.name, randomUUID());
  for (const c of keysToGive(d, opened.table, new Set(values.keys()))) {
    if (c.type !== 'uuid') throw writeRefused(c.name, 'required');
    values.set(c.name, randomUUID());
  }
  const rules = endpoint.booking;
  if (rules?.codeColumn && !values.has(rules.codeColumn)) {
    const code = column(opened, rules.codeColumn);
    if (code.default === null) values.set(code.name, bookingCode(code.maxLength));
  }
  for (const c of opened.table.columns) if (!values.has(c.name) && !fillsItself(c)) throw writeRefused(c.name, 'required');
  checkRanges(d.name, opened.table, values);
  const booking = rules ? bookingTarget(endpoint, rules, portableInstant(values.get(rules.timeColumn)), partyOf(opened, values), now) : null;
  return { kind: 'insert', values, booking };
}

/** A change to one row; PUT must name every writable column the caller may set. */
export function planUpdate(opened: Opened, key: PortableValue[], input: Record<string, unknown>, put: boolean): UpdatePlan {
  const fixed = fixedColumns(opened);
  const writable = writableColumns(opened);
  const values = parseValues(withVenueTimes(opened, input), { table: opened.table, writable, fixed });
  checkBookingEmail(opened, values);
  if (put) for (const name of writable) if (!fixed.has(name) && !values.has(name)) throw writeRefused(name, 'required');
  const rules = opened.endpoint.booking;
  const rebook = rules !== null && (values.has(rules.timeColumn) || (rules.partyColumn !== null && values.has(rules.partyColumn)));
  return { kind: 'update', key, values, rebook };
}

/** A batch row: its whole key present = an update of that row; none of it = an insert. */
export function splitBatchRow(opened: Opened, row: Record<string, unknown>): { key: PortableValue[] | null; rest: Record<string, unknown> } {
  const pk = primaryKeyColumns(opened.table);
  const present = pk.filter((c) => row[c.name] !== undefined && row[c.name] !== null);
  if (present.length === 0) return { key: null, rest: row };
  if (present.length < pk.length) throw writeRefused(pk.find((c) => !present.includes(c))!.name, 'primary-key');
  const writable = writableColumns(opened);
  const rest = { ...row };
  // A key column the caller may write stays a value too (it sets the key it already has).
  for (const c of pk) if (!writable.has(c.name)) delete rest[c.name];
  return { key: pk.map((c) => columnValue(c, row[c.name])), rest };
}

export { partyOf };
