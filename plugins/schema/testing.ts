/** Schema models for the schema plugin's unit tests (the builders are the kernel's). */
import type { SchemaModel } from '../../engine/schema/model.js';
import { col, model, tbl } from '../../engine/schema/testing.js';

export { col, model, tbl };

export const idCol = () => col('id', 'integer', { nativeType: 'integer', nullable: false, autoIncrement: true });

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
