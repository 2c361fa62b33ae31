import type { ColumnGrant } from '../../kernel/api.js';

/** What the read rule needs of a column: its name and its display flags (the schema plugin's effective column). */
export interface ReadRuleColumn {
  name: string;
  display: { secret: boolean; personal: boolean };
}

/**
 * Whether a caller whose data.read grant on the table is `read` (null: none) reads this column
 * (decisions DA2): the primary key always, since it addresses the row; secret columns never;
 * personal columns only through a grant that reaches the whole table; others when the grant names
 * them. The data API, pages' configs and views, and widget queries all read through this one rule.
 */
export function readsColumn(column: ReadRuleColumn, primaryKey: ReadonlySet<string>, read: ColumnGrant | null): boolean {
  if (primaryKey.has(column.name)) return true;
  if (!read || column.display.secret) return false;
  return read.all || (read.columns.has(column.name) && !column.display.personal);
}
