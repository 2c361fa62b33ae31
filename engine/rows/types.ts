import type { Column, Table } from '../schema/model.js';

export type RowsDialectName = 'postgres' | 'mysql' | 'sqlite';

/** The part of a schema table the row code needs (the effective table of the schema plugin fits). */
export type RowTable = Pick<Table, 'schema' | 'name' | 'kind' | 'columns' | 'primaryKey'>;

/**
 * A value checked against its column's portable type, before the dialect turns it into a
 * driver parameter: strings for text, bigint, decimal, date, time, JSON (its text), and
 * datetime (naive UTC `YYYY-MM-DD HH:MM:SS[.ffffff]`); numbers; booleans; Buffers.
 */
export type PortableValue = string | number | boolean | Buffer | null;

export interface InputIssue {
  /** Where the problem is, as the caller named it: `query.filter[email][like]`, `body.values.price`. */
  path: string;
  message: string;
}

/** Something the caller sent that cannot be used; each plugin renders it with its own error code. */
export class RowInputError extends Error {
  override name = 'RowInputError';
  constructor(readonly issues: InputIssue[]) {
    super(issues.map((i) => `${i.path}: ${i.message}`).join('; '));
  }
}

export function refuse(path: string, message: string): never {
  throw new RowInputError([{ path, message }]);
}

export function columnOf(table: RowTable, name: string): Column | undefined {
  return table.columns.find((c) => c.name === name);
}

// Asked several times on every list; kept while the table holds the same columns and key.
const keyColumns = new WeakMap<RowTable, { columns: RowTable['columns']; key: RowTable['primaryKey']; pk: Column[] }>();

export function primaryKeyColumns(table: RowTable): Column[] {
  const hit = keyColumns.get(table);
  if (hit && hit.columns === table.columns && hit.key === table.primaryKey) return [...hit.pk];
  const pk = (table.primaryKey?.columns ?? []).map((n) => columnOf(table, n)!).filter(Boolean);
  keyColumns.set(table, { columns: table.columns, key: table.primaryKey, pk });
  return [...pk];
}
