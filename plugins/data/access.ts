import type { ColumnGrant } from '../../kernel/api.js';
import { readsColumn } from '../../engine/rows/index.js';
import type { EffectiveColumn, EffectiveTable } from '../schema/provides.js';

export const DATA_READ = 'data.read';
export const DATA_WRITE = 'data.write';

/** The columns a caller may see and change in one table. */
export interface TableView {
  /** In the table's column order. */
  readable: EffectiveColumn[];
  readableNames: ReadonlySet<string>;
  /** Null when the caller may not write this table at all. */
  writable: ReadonlySet<string> | null;
  /** Whether the write grant reaches every column: deleting a row needs it. */
  writesWholeRows: boolean;
}

/**
 * Which columns a caller reads and writes (decisions DA2):
 * - secret columns are never read, and may be written (write-only);
 * - personal columns are read only through a grant that reaches the whole table (no column list);
 * - hidden columns are a display hint and are read like any other;
 * - the primary key is always read where the table is, since it addresses the row;
 * - generated columns are never written;
 * - deleting a row needs a write grant without a column list (it removes every column's value).
 */
export function tableView(table: EffectiveTable, read: ColumnGrant | null, write: ColumnGrant | null): TableView {
  // The effective table and the principal's grants are kept between requests (K25, K30): so is their view.
  const byRead = views.get(table) ?? new WeakMap<object, WeakMap<object, TableView>>();
  views.set(table, byRead);
  const byWrite = byRead.get(read ?? NO_GRANT) ?? new WeakMap<object, TableView>();
  byRead.set(read ?? NO_GRANT, byWrite);
  let view = byWrite.get(write ?? NO_GRANT);
  if (!view) byWrite.set(write ?? NO_GRANT, (view = computeTableView(table, read, write)));
  return view;
}

const NO_GRANT = {};
const views = new WeakMap<EffectiveTable, WeakMap<object, WeakMap<object, TableView>>>();

function computeTableView(table: EffectiveTable, read: ColumnGrant | null, write: ColumnGrant | null): TableView {
  const pk = new Set(table.primaryKey?.columns ?? []);
  const readable = table.columns.filter((c) => readsColumn(c, pk, read));
  const writable = write ? new Set(table.columns.filter((c) => c.generated === null && (write.all || write.columns.has(c.name))).map((c) => c.name)) : null;
  return { readable, readableNames: new Set(readable.map((c) => c.name)), writable, writesWholeRows: write?.all ?? false };
}
