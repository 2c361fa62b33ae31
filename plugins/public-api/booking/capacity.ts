import { sql } from 'kysely';
import { normaliseDatetime, rawValues, selectList, setField, whereSql, type AnyDb, type Filter, type RowDialect } from '../../../engine/rows/index.js';
import type { Column } from '../../../engine/schema/model.js';
import type { BookingRules } from '../../public-admin/provides.js';
import type { EffectiveTable } from '../../schema/provides.js';
import { instantOfWire } from './times.js';

export interface BookedRow {
  at: number;
  party: number;
  /** Wire values of the primary key and identity columns, to recognise a row without exposing it. */
  values: Record<string, unknown>;
}

function column(table: EffectiveTable, name: string): Column {
  const c = table.columns.find((x) => x.name === name);
  if (!c) throw new Error(`booking column ${name} is missing`);
  return c;
}

/** A time bound as the time column's dialect stores it. */
function bound(d: RowDialect, c: Column, at: number) {
  return d.bind(c, normaliseDatetime(new Date(at).toISOString()));
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * The rows that may hold a time in [from, to). A native date-time column compares as instants
 * in the database. Text (SQLite's DATETIME, or a text column) compares as text, and one instant
 * has many spellings (`T` or space, `Z`, an offset, a fraction) that text order does not agree
 * on: so the statement takes every row whose text starts with a calendar day the range may show
 * as, under any offset (-12 h to +14 h), and the caller keeps those whose instant is inside.
 */
function timeRange(d: RowDialect, c: Column, from: number, to: number) {
  const t = sql.id(c.name);
  if (d.name !== 'sqlite' && c.type === 'datetime') return sql`${t} >= ${bound(d, c, from)} and ${t} < ${bound(d, c, to)}`;
  return sql`${t} >= ${dayOf(from - 14 * HOUR)} and ${t} < ${dayOf(to + 14 * HOUR + DAY)}`;
}

/**
 * The bookings in [from, to) inside the endpoint's default filters: times, party sizes and the
 * few columns needed to leave a row out. Never answered to a caller as such.
 */
export async function bookingsBetween(
  db: AnyDb,
  d: RowDialect,
  table: EffectiveTable,
  rules: BookingRules,
  filters: readonly Filter[],
  from: number,
  to: number,
  extra: readonly string[] = [],
): Promise<BookedRow[]> {
  const time = column(table, rules.timeColumn);
  const party = rules.partyColumn ? column(table, rules.partyColumn) : null;
  const others = [...new Set(extra)].map((n) => column(table, n)).filter((c) => c !== time && c !== party);
  const selected = [time, ...(party ? [party] : []), ...others];
  const scope = whereSql(d, filters, null, []);
  const res = await sql<
    Record<string, unknown>
  >`select ${selectList(d, selected)} from ${d.table(table)} where ${timeRange(d, time, from, to)}${scope ? sql` and ${scope}` : sql``}`.execute(db);
  const out: BookedRow[] = [];
  for (const row of res.rows) {
    const raw = rawValues(row, selected.length);
    const at = instantOfWire(d.toWire(time, raw[0]));
    // Compared as instants, whatever text the row holds: the write-time check and availability agree.
    if (at === null || at < from || at >= to) continue;
    const size = party ? Number(d.toWire(party, raw[1])) : 1;
    const values: Record<string, unknown> = {};
    others.forEach((c, i) => setField(values, c.name, d.toWire(c, raw[i + (party ? 2 : 1)])));
    out.push({ at, party: Number.isFinite(size) && size > 0 ? size : 1, values });
  }
  return out;
}

/** Does a booked row hold these wire values (a customer's identity, a row's key)? */
export function holds(row: BookedRow, values: Record<string, unknown>): boolean {
  return Object.entries(values).every(([k, v]) => String(row.values[k]) === String(v));
}
