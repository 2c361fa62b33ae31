import { sql, type RawBuilder } from 'kysely';
import {
  keySql,
  rawValues,
  readRow,
  selectList,
  whereSql,
  type AnyDb,
  type Assignment,
  type Filter,
  type PortableValue,
  type RowDialect,
  type RowTable,
} from '../../../engine/rows/index.js';
import type { Column } from '../../../engine/schema/model.js';

/**
 * Statements on one row that carry the endpoint's scope: `where <key> and <default filters>`.
 * engine/rows writes by key alone (staff may reach any row); the public API must not, so a
 * row outside the filter is never read, changed or deleted, even by a key that names it.
 */

function where(d: RowDialect, table: RowTable, key: readonly PortableValue[], scope: readonly Filter[]): RawBuilder<unknown> {
  const filters = whereSql(d, scope, null, []);
  return filters ? sql`${keySql(d, table, key)} and ${filters}` : keySql(d, table, key);
}

/** The row's raw values in `columns` order, or null when no row in scope has this key. */
export async function readInScope(
  db: AnyDb,
  d: RowDialect,
  table: RowTable,
  key: readonly PortableValue[],
  scope: readonly Filter[],
  columns: readonly Column[],
  forUpdate = false,
): Promise<unknown[] | null> {
  const lock = forUpdate && d.forUpdate ? sql` for update` : sql``;
  const res = await sql<Record<string, unknown>>`select ${selectList(d, columns)} from ${d.table(table)} where ${where(d, table, key, scope)}${lock}`.execute(
    db,
  );
  return res.rows[0] ? rawValues(res.rows[0], columns.length) : null;
}

/** The updated row, or null when no row in scope has this key. */
export async function updateInScope(
  db: AnyDb,
  d: RowDialect,
  table: RowTable,
  key: readonly PortableValue[],
  scope: readonly Filter[],
  values: readonly Assignment[],
  columns: readonly Column[],
): Promise<unknown[] | null> {
  if (values.length === 0) return readInScope(db, d, table, key, scope, columns);
  const set = sql.join(values.map(([c, v]) => sql`${sql.id(c.name)} = ${d.bind(c, v)}`));
  const update = sql`update ${d.table(table)} set ${set} where ${where(d, table, key, scope)}`;
  if (d.returning) {
    const res = await sql<Record<string, unknown>>`${update} returning ${selectList(d, columns)}`.execute(db);
    return res.rows[0] ? rawValues(res.rows[0], columns.length) : null;
  }
  // mysql2 reports matched rows (FOUND_ROWS), so an update to the same values still counts.
  const res = await update.execute(db);
  if (Number(res.numAffectedRows ?? 0n) === 0) return null;
  const given = new Map(values.map(([c, v]) => [c.name, v]));
  const pk = (table.primaryKey?.columns ?? []).map((name, i) => (given.has(name) ? given.get(name)! : key[i]!));
  return readRow(db, d, table, pk, columns);
}

/** Whether a row in scope with this key was deleted. */
export async function deleteInScope(db: AnyDb, d: RowDialect, table: RowTable, key: readonly PortableValue[], scope: readonly Filter[]): Promise<boolean> {
  const res = await sql`delete from ${d.table(table)} where ${where(d, table, key, scope)}`.execute(db);
  return Number(res.numAffectedRows ?? 0n) > 0;
}
