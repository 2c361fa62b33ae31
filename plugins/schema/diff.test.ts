import { describe, expect, it } from 'vitest';
import { diffModels, summarizeDiff } from './diff.js';
import { modelHash } from './hash.js';
import { col, model, shop, tbl } from './testing.js';

const clone = <T>(v: T): T => structuredClone(v);

describe('diffModels', () => {
  it('reports nothing between a model and itself, and ignores row estimates', () => {
    const a = shop();
    const b = clone(a);
    b.tables[0]!.rowEstimate = 1234;
    const d = diffModels(a, b);
    expect(d.changed).toBe(false);
    expect(d.tables).toEqual({ added: [], removed: [], changed: [] });
    expect(modelHash(a)).toBe(modelHash(b));
  });

  it('reports an added column', () => {
    const a = shop();
    const b = clone(a);
    b.tables[2]!.columns.push(col('sku', 'string', { nullable: false }));
    const d = diffModels(a, b);
    expect(d.changed).toBe(true);
    expect(d.tables.changed).toHaveLength(1);
    const t = d.tables.changed[0]!;
    expect(t.table).toBe('products');
    expect(t.columns.added.map((c) => c.name)).toEqual(['sku']);
    expect(t.columns.removed).toEqual([]);
    expect(t.columns.changed).toEqual([]);
    expect(t.columnOrder).toBeNull();
  });

  it('reports a dropped table, and an added one', () => {
    const a = shop();
    const b = clone(a);
    b.tables = b.tables.filter((t) => t.name !== 'products');
    b.tables.push(tbl('reviews', [col('id', 'integer'), col('body', 'text')]));
    const d = diffModels(a, b);
    expect(d.tables.removed).toEqual([{ table: 'products', schema: null, name: 'products', kind: 'table', columns: ['id', 'title', 'price'] }]);
    expect(d.tables.added.map((t) => t.table)).toEqual(['reviews']);
    expect(d.tables.changed).toEqual([]);
    expect(summarizeDiff(d)).toEqual({ changed: true, tablesAdded: ['reviews'], tablesRemoved: ['products'], tablesChanged: [] });
  });

  it('reports a changed type with before and after, and nullability and default', () => {
    const a = shop();
    const b = clone(a);
    const status = b.tables[1]!.columns.find((c) => c.name === 'status')!;
    Object.assign(status, { type: 'text', nativeType: 'text', maxLength: null, nullable: false, default: "'new'" });
    const [t] = diffModels(a, b).tables.changed;
    expect(t!.columns.changed).toEqual([
      {
        name: 'status',
        changes: [
          { field: 'type', from: 'string', to: 'text' },
          { field: 'nativeType', from: 'varchar(255)', to: 'text' },
          { field: 'nullable', from: true, to: false },
          { field: 'default', from: null, to: "'new'" },
          { field: 'maxLength', from: 255, to: null },
        ],
      },
    ]);
  });

  it('reports an added foreign key, a changed action, and key and index changes', () => {
    const a = shop();
    const b = clone(a);
    const orders = b.tables[1]!;
    orders.columns.push(col('product_id', 'integer'));
    const fk = {
      name: 'orders_product_fk',
      columns: ['product_id'],
      referencedSchema: null,
      referencedTable: 'products',
      referencedColumns: ['id'],
      onDelete: 'restrict' as const,
      onUpdate: 'no action' as const,
    };
    orders.foreignKeys.push(fk);
    orders.foreignKeys[0]!.onDelete = 'set null';
    orders.indexes = [{ name: 'orders_status', columns: ['status', 'total'], unique: false }];
    b.tables[0]!.uniques = [];
    b.tables[2]!.primaryKey = { name: null, columns: ['id', 'title'] };
    const d = diffModels(a, b);
    const byName = new Map(d.tables.changed.map((t) => [t.table, t]));
    const o = byName.get('orders')!;
    expect(o.foreignKeys.added).toEqual([fk]);
    expect(o.foreignKeys.changed).toHaveLength(1);
    expect(o.foreignKeys.changed[0]!.from.onDelete).toBe('cascade');
    expect(o.foreignKeys.changed[0]!.to.onDelete).toBe('set null');
    expect(o.indexes.changed).toEqual([
      { from: { name: 'orders_status', columns: ['status'], unique: false }, to: { name: 'orders_status', columns: ['status', 'total'], unique: false } },
    ]);
    expect(byName.get('customers')!.uniques.removed).toEqual([{ name: 'customers_email_unique', columns: ['email'] }]);
    expect(byName.get('products')!.primaryKey).toEqual({ from: { name: null, columns: ['id'] }, to: { name: null, columns: ['id', 'title'] } });
  });

  it('reports a rename as removed plus added', () => {
    const a = shop();
    const b = clone(a);
    b.tables[0]!.columns[1]!.name = 'full_name';
    b.tables[2]!.name = 'items';
    const d = diffModels(a, b);
    expect(d.tables.removed.map((t) => t.table)).toEqual(['products']);
    expect(d.tables.added.map((t) => t.table)).toEqual(['items']);
    const c = d.tables.changed.find((t) => t.table === 'customers')!;
    expect(c.columns.removed.map((x) => x.name)).toEqual(['name']);
    expect(c.columns.added.map((x) => x.name)).toEqual(['full_name']);
  });

  it('reports a reordering of the columns both sides have', () => {
    const a = shop();
    const b = clone(a);
    b.tables[2]!.columns.reverse();
    const [t] = diffModels(a, b).tables.changed;
    expect(t!.columnOrder).toEqual({ from: ['id', 'title', 'price'], to: ['price', 'title', 'id'] });
    expect(modelHash(a)).not.toBe(modelHash(b));
  });

  it('tells namespaces apart and reports named enums', () => {
    const a = model([tbl('t', [col('id')], { schema: 'public' }), tbl('t', [col('id')], { schema: 'sales' })], {
      dialect: 'postgres',
      enums: [{ schema: 'public', name: 'mood', values: ['ok', 'sad'] }],
    });
    const b = clone(a);
    b.tables[1]!.columns.push(col('x'));
    b.enums[0]!.values.push('happy');
    const d = diffModels(a, b);
    expect(d.tables.changed.map((t) => t.table)).toEqual(['sales.t']);
    expect(d.enums.changed).toEqual([
      { from: { schema: 'public', name: 'mood', values: ['ok', 'sad'] }, to: { schema: 'public', name: 'mood', values: ['ok', 'sad', 'happy'] } },
    ]);
  });

  it('treats nothing before as everything added', () => {
    const d = diffModels(null, shop());
    expect(d.changed).toBe(true);
    expect(d.tables.added.map((t) => t.table)).toEqual(['customers', 'orders', 'products']);
  });

  it('hashes the same structure the same whatever the order tables and keys come in', () => {
    const a = shop();
    const b = clone(a);
    b.tables.reverse();
    b.tables[0]!.columns[0] = Object.fromEntries(Object.entries(b.tables[0]!.columns[0]!).reverse()) as (typeof a.tables)[0]['columns'][0];
    expect(modelHash(a)).toBe(modelHash(b));
    expect(diffModels(a, b).changed).toBe(false);
  });
});
