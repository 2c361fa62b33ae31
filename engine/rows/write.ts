import { sql } from 'kysely';
import type { Column } from '../schema/model.js';
import type { AnyDb, RowDialect } from './dialect.js';
import { keySql, rawValues, readRow, selectList } from './read.js';
import { primaryKeyColumns, type PortableValue, type RowTable } from './types.js';

/**
 * Writes of one row, inside the caller's transaction. Each answers the row as stored (defaults,
 * generated columns, triggers included) as raw values in `columns` order: RETURNING where the
 * dialect has it, else a re-select by key.
 */

export type Assignment = readonly [Column, PortableValue];

/**
 * Key columns the database would choose that MySQL cannot report back: only an AUTO_INCREMENT
 * key comes back (insertId), so any other key left to a default must be given.
 */
export function keysToGive(d: RowDialect, table: RowTable, given: ReadonlySet<string>): Column[] {
  if (d.returning) return [];
  return primaryKeyColumns(table).filter((c) => !given.has(c.name) && !(c.autoIncrement && primaryKeyColumns(table).length === 1));
}

export async function insertRow(db: AnyDb, d: RowDialect, table: RowTable, values: readonly Assignment[], columns: readonly Column[]): Promise<unknown[]> {
  const cols = values.map(([c]) => c);
  const modifier = d.insertModifier(table, cols);
  const insert =
    values.length === 0
      ? d.defaultValues(table)
      : sql`insert into ${d.table(table)} (${sql.join(cols.map((c) => sql.id(c.name)))})${modifier ? sql` ${modifier}` : sql``} values (${sql.join(values.map(([c, v]) => d.bind(c, v)))})`;
  if (d.returning) {
    const res = await sql<Record<string, unknown>>`${insert} returning ${selectList(d, columns)}`.execute(db);
    return rawValues(res.rows[0]!, columns.length);
  }
  const res = await insert.execute(db);
  const pk = primaryKeyColumns(table);
  const given = new Map(values.map(([c, v]) => [c.name, v]));
  const key = pk.map((c) => (given.has(c.name) ? given.get(c.name)! : res.insertId !== undefined ? res.insertId.toString() : null));
  const row = await readRow(db, d, table, key, columns);
  if (!row) throw new Error('the inserted row could not be read back by its key');
  return row;
}

/** Null when no row has this key. `newKey` is the key after the update (a write may change it). */
export async function updateRow(
  db: AnyDb,
  d: RowDialect,
  table: RowTable,
  key: readonly PortableValue[],
  values: readonly Assignment[],
  columns: readonly Column[],
): Promise<unknown[] | null> {
  if (values.length === 0) return readRow(db, d, table, key, columns);
  const set = sql.join(values.map(([c, v]) => sql`${sql.id(c.name)} = ${d.bind(c, v)}`));
  const update = sql`update ${d.table(table)} set ${set} where ${keySql(d, table, key)}`;
  if (d.returning) {
    const res = await sql<Record<string, unknown>>`${update} returning ${selectList(d, columns)}`.execute(db);
    return res.rows[0] ? rawValues(res.rows[0], columns.length) : null;
  }
  await update.execute(db);
  const given = new Map(values.map(([c, v]) => [c.name, v]));
  const newKey = primaryKeyColumns(table).map((c, i) => (given.has(c.name) ? given.get(c.name)! : key[i]!));
  return readRow(db, d, table, newKey, columns);
}

export async function deleteRow(db: AnyDb, d: RowDialect, table: RowTable, key: readonly PortableValue[]): Promise<boolean> {
  const res = await sql`delete from ${d.table(table)} where ${keySql(d, table, key)}`.execute(db);
  return Number(res.numAffectedRows ?? 0n) > 0;
}
