import type { DdlColumn, DdlTable } from './types.js';

/**
 * A table as its owner creates it: the declaration plus a column the owner adds to every table
 * (an add-on's instance column, D28, which the add-ons plugin passes), indexed, since every
 * statement of the owner filters on it. The column should be NOT NULL with a default, so adding
 * it to a table that holds rows is additive and those rows take the default.
 */
export function withInstanceColumn(table: DdlTable, column: DdlColumn): DdlTable {
  if (table.columns.some((c) => c.name === column.name)) return table;
  const indexed = table.indexes.some((i) => i.columns[0] === column.name);
  return {
    ...table,
    columns: [...table.columns, column],
    indexes: indexed ? table.indexes : [...table.indexes, { columns: [column.name], unique: false }],
  };
}
