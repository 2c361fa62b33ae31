import type { Schemas } from '../api/types';

type Table = Schemas['EffectiveSchemaTable'];

/** The single-column foreign key a column belongs to, if any. */
export function foreignKeyOf(table: Table, column: string) {
  return table.foreignKeys.find((fk) => fk.columns.length === 1 && fk.columns[0] === column) ?? null;
}

/** The column that names a row of `table` to a person: its display column, else its first text column, else its key. */
export function displayColumn(table: Table): string {
  if (table.display.displayColumn) return table.display.displayColumn;
  const text = table.columns.find((c) => (c.type === 'string' || c.type === 'text') && !c.display.secret && !c.display.personal);
  return text?.name ?? table.primaryKey?.columns[0] ?? table.columns[0]!.name;
}

export function findTable(tables: readonly Table[], name: string, schema: string | null): Table | undefined {
  return tables.find((t) => t.name === name && (schema === null || t.schema === null || t.schema === schema));
}

/** Where a key column's value is named: the referenced table, its key column and the column that names its rows. */
export interface ReferenceTarget {
  conn: string;
  /** The referenced table's ref (the data API's name for it). */
  table: string;
  keyColumn: string;
  displayColumn: string;
}

/**
 * The row a column's value points at, when a person is better served by its name: a
 * single-column foreign key onto a table of this connection whose rows are named by another
 * column than the key. Null otherwise (the value is then shown as it is).
 */
export function referenceTarget(conn: string, table: Table, tables: readonly Table[], column: string): ReferenceTarget | null {
  const fk = foreignKeyOf(table, column);
  if (!fk) return null;
  const target = findTable(tables, fk.referencedTable, fk.referencedSchema);
  if (!target) return null;
  const shown = displayColumn(target);
  const keyColumn = fk.referencedColumns[0]!;
  if (shown === keyColumn) return null;
  const shownColumn = target.columns.find((c) => c.name === shown);
  if (!shownColumn || shownColumn.display.secret) return null;
  return { conn, table: target.ref, keyColumn, displayColumn: shown };
}
