/** Builders for hand-written schema models in unit tests (kernel and plugins alike). */
import type { Column, SchemaModel, Table } from './model.js';

export function col(name: string, type: Column['type'] = 'string', extra: Partial<Column> = {}): Column {
  return {
    name,
    type,
    nativeType: type === 'string' ? 'varchar(255)' : type,
    nullable: true,
    default: null,
    autoIncrement: false,
    generated: null,
    maxLength: type === 'string' ? 255 : null,
    precision: null,
    scale: null,
    enumValues: null,
    comment: null,
    ...extra,
  };
}

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

export function model(tables: Table[], extra: Partial<SchemaModel> = {}): SchemaModel {
  return { dialect: 'sqlite', tables, enums: [], ...extra };
}
