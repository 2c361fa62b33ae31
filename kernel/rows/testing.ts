/** Builders for hand-written tables in the row code's unit tests. */
import type { Column, Table } from '../schema/model.js';

export function col(name: string, type: Column['type'] = 'string', extra: Partial<Column> = {}): Column {
  return {
    name,
    type,
    nativeType: type === 'string' ? 'varchar(255)' : type,
    nullable: true,
    default: null,
    autoIncrement: false,
    generated: null,
    maxLength: null,
    precision: null,
    scale: null,
    enumValues: null,
    comment: null,
    ...extra,
  };
}

export const idCol = () => col('id', 'integer', { nativeType: 'integer', nullable: false });

export function tbl(name: string, columns: Column[], extra: Partial<Table> = {}): Table {
  return {
    schema: null,
    name,
    kind: 'table',
    columns,
    primaryKey: columns.some((c) => c.name === 'id') ? { name: null, columns: ['id'] } : null,
    foreignKeys: [],
    uniques: [],
    indexes: [],
    checks: [],
    rowEstimate: null,
    comment: null,
    ...extra,
  };
}
