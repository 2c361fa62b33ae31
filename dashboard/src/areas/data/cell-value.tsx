import { referenceTarget, type ReferenceTarget } from '../../values/references';
import type { ValueContext } from '../../values/format';
import { drawValue, plainValue, Value, type PlainValue } from '../../values/Value';
import type { Column, Table } from './api';

/** Each table's key columns and what they point at, worked out once per schema (not per cell and render). */
const targets = new WeakMap<Table, Map<string, ReferenceTarget | null>>();

function targetOf(conn: string, table: Table, tables: readonly Table[], column: string): ReferenceTarget | null {
  let byColumn = targets.get(table);
  if (!byColumn) targets.set(table, (byColumn = new Map()));
  if (!byColumn.has(column)) byColumn.set(column, referenceTarget(conn, table, tables, column));
  return byColumn.get(column)!;
}

/**
 * A stored value of the data area (grid cell, row page) through the display layer (values/):
 * read by its column's type, a key column named by the referenced row's display column.
 */
export function DataValue(props: { conn: string; table: Table; tables: readonly Table[]; column: Column; value: unknown; inGrid?: boolean }) {
  const { conn, table, tables, column, value } = props;
  return <Value column={column} value={value} reference={targetOf(conn, table, tables, column.name)} inGrid={props.inGrid} />;
}

/** DataValue drawn in `ctx` by the caller, no component of its own: the grid's cells (one context asked for all of them, DB57). */
export function dataValue(conn: string, table: Table, tables: readonly Table[], column: Column, value: unknown, ctx: ValueContext) {
  return drawValue({ column, value, reference: targetOf(conn, table, tables, column.name), inGrid: true }, ctx);
}

/** DataValue as a grid cell's own text when it reads as plain text (values/Value.tsx plainValue), else null (dataValue draws it). */
export function plainDataValue(conn: string, table: Table, tables: readonly Table[], column: Column, value: unknown, ctx: ValueContext): PlainValue | null {
  return plainValue({ column, value, reference: targetOf(conn, table, tables, column.name) }, ctx);
}
