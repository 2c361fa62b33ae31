import { describe, expect, it } from 'vitest';
import { applyOverrides, defaultDisplayColumn, effectiveModelSchema } from './effective.js';
import { normalizeOverrides, overrideProblems, overridesInputSchema, type Overrides } from './overrides.js';
import { col, idCol, shop, tbl } from './testing.js';

const overrides: Overrides = {
  tables: [
    {
      table: 'customers',
      label: 'Clients',
      displayColumn: 'email',
      columns: [
        { column: 'email', personal: true, format: 'email' },
        { column: 'password_hash', hidden: true, secret: true },
      ],
    },
    { table: 'products', hidden: true },
  ],
};

describe('applyOverrides', () => {
  it('layers labels, flags, formats and the display column over the model', () => {
    const eff = applyOverrides(shop(), overrides);
    expect(effectiveModelSchema.safeParse(eff).success).toBe(true);
    const customers = eff.tables.find((t) => t.ref === 'customers')!;
    expect(customers.display).toEqual({ label: 'Clients', hidden: false, displayColumn: 'email' });
    expect(customers.columns.find((c) => c.name === 'email')!.display).toEqual({
      label: 'Email',
      hidden: false,
      personal: true,
      secret: false,
      format: 'email',
    });
    expect(customers.columns.find((c) => c.name === 'password_hash')!.display).toMatchObject({ hidden: true, secret: true });
    expect(eff.tables.find((t) => t.ref === 'products')!.display).toEqual({ label: 'Products', hidden: true, displayColumn: 'title' });
    expect(eff.tables.find((t) => t.ref === 'orders')!.columns.find((c) => c.name === 'customer_id')!.display.label).toBe('Customer ID');
  });

  it('falls back to the default display column when the chosen one is gone', () => {
    const eff = applyOverrides(shop(), { tables: [{ table: 'customers', displayColumn: 'nickname' }] });
    expect(eff.tables[0]!.display.displayColumn).toBe('name');
  });
});

describe('defaultDisplayColumn', () => {
  it('prefers a naming column, then a textual non-key column, then the primary key', () => {
    expect(defaultDisplayColumn(tbl('a', [idCol(), col('code'), col('title')]))).toBe('title');
    expect(defaultDisplayColumn(tbl('a', [idCol(), col('parent_id', 'integer'), col('notes', 'text')]))).toBe('notes');
    expect(defaultDisplayColumn(tbl('a', [idCol(), col('n', 'integer')]))).toBe('id');
    expect(defaultDisplayColumn(tbl('a', [col('name'), col('email')]), (c) => c.name !== 'name')).toBe('email');
  });
});

describe('overrideProblems', () => {
  it('reports overrides naming a missing table, column or display column', () => {
    const m = shop();
    m.tables = m.tables.filter((t) => t.name !== 'products');
    m.tables[0]!.columns = m.tables[0]!.columns.filter((c) => c.name !== 'email');
    expect(overrideProblems(m, overrides)).toEqual([
      { table: 'customers', column: 'email', reason: 'missing', override: 'column' },
      { table: 'customers', column: 'email', reason: 'missing', override: 'displayColumn' },
      { table: 'products', reason: 'missing', override: 'table' },
    ]);
    expect(overrideProblems(shop(), overrides)).toEqual([]);
  });
});

describe('the overrides input', () => {
  it('refuses a table or a column listed twice, naming it', () => {
    const res = overridesInputSchema.safeParse({
      tables: [
        { table: 'a', columns: [{ column: 'x' }, { column: 'x', hidden: true }] },
        { table: 'a', label: 'A' },
      ],
    });
    expect(res.success).toBe(false);
    expect(res.error!.issues.map((i) => i.path.join('.'))).toEqual(['tables.0.columns.1.column', 'tables.1.table']);
  });

  it('refuses an unknown format or an unknown key', () => {
    expect(overridesInputSchema.safeParse({ tables: [{ table: 'a', columns: [{ column: 'x', format: 'html' }] }] }).success).toBe(false);
    expect(overridesInputSchema.safeParse({ tables: [{ table: 'a', colour: 'red' }] }).success).toBe(false);
  });

  it('normalizes away entries that set nothing', () => {
    expect(
      normalizeOverrides({
        tables: [
          { table: 'a', columns: [{ column: 'x' }] },
          { table: 'b', columns: [{ column: 'y', hidden: false }] },
        ],
      }),
    ).toEqual({
      tables: [{ table: 'b', columns: [{ column: 'y', hidden: false }] }],
    });
  });
});
