import { DEFAULT_INSTANCE, INSTANCE_COLUMN, type TableDeclaration } from '../../../addons-sdk/src/manifest/declarations.js';

/**
 * An app table as the instance creates it: the author's declaration plus the instance column
 * (D28), NOT NULL with the default instance's id as its default, so adding it to a table that
 * holds rows is additive and those rows belong to the default instance. Indexed, since every
 * statement of an app's endpoints filters on it.
 */
export function withInstanceColumn(table: TableDeclaration): TableDeclaration {
  if (table.columns.some((c) => c.name === INSTANCE_COLUMN)) return table;
  const indexed = table.indexes.some((i) => i.columns[0] === INSTANCE_COLUMN);
  return {
    ...table,
    columns: [
      ...table.columns,
      { name: INSTANCE_COLUMN, type: 'string', maxLength: 40, nullable: false, default: DEFAULT_INSTANCE, autoIncrement: false, unique: false },
    ],
    indexes: indexed ? table.indexes : [...table.indexes, { columns: [INSTANCE_COLUMN], unique: false }],
  };
}
