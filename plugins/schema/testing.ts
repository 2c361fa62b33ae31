/** Builders for hand-written SchemaModels in unit tests. */
import type { Column, SchemaModel, Table } from '../../kernel/schema/model.js';

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

export const idCol = () => col('id', 'integer', { nativeType: 'integer', nullable: false, autoIncrement: true });

export function model(tables: Table[], extra: Partial<SchemaModel> = {}): SchemaModel {
  return { dialect: 'sqlite', tables, enums: [], ...extra };
}

/** A small shop: customers, orders referencing customers, and a products table. */
export function shop(): SchemaModel {
  return model([
    tbl('customers', [idCol(), col('name', 'string', { nullable: false }), col('email'), col('password_hash')], {
      uniques: [{ name: 'customers_email_unique', columns: ['email'] }],
    }),
    tbl(
      'orders',
      [
        idCol(),
        col('customer_id', 'integer', { nativeType: 'integer', nullable: false }),
        col('total', 'decimal', { nativeType: 'numeric(10,2)', precision: 10, scale: 2 }),
        col('status'),
      ],
      {
        foreignKeys: [
          {
            name: null,
            columns: ['customer_id'],
            referencedSchema: null,
            referencedTable: 'customers',
            referencedColumns: ['id'],
            onDelete: 'cascade',
            onUpdate: 'no action',
          },
        ],
        indexes: [{ name: 'orders_status', columns: ['status'], unique: false }],
      },
    ),
    tbl('products', [idCol(), col('title', 'string', { nullable: false }), col('price', 'decimal')]),
  ]);
}
