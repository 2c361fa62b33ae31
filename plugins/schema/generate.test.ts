import { describe, expect, it } from 'vitest';
import { applyOverrides } from './effective.js';
import { LIST_COLUMNS_MAX, planPages } from './generate.js';
import { col, idCol, shop, tbl } from './testing.js';

const connection = { connectionId: 'c1', connectionName: 'Shop DB' };

describe('planPages', () => {
  it('plans a list and a detail page per visible table, honouring labels, hidden columns and the display column', () => {
    const model = applyOverrides(shop(), {
      tables: [
        {
          table: 'customers',
          label: 'Clients',
          displayColumn: 'email',
          columns: [
            { column: 'password_hash', hidden: true },
            { column: 'email', label: 'E-mail', format: 'email' },
          ],
        },
        { table: 'products', hidden: true },
      ],
    });
    const { pages, skipped } = planPages({ ...connection, model });
    expect(skipped).toEqual([]);
    expect(pages.map((p) => [p.kind, p.table, p.title, p.slugBase, p.generatedKey])).toEqual([
      ['list', 'customers', 'Clients', 'shop-db-customers', 'schema:c1:list:customers'],
      ['detail', 'customers', 'Clients detail', 'shop-db-customers-detail', 'schema:c1:detail:customers'],
      ['list', 'orders', 'Orders', 'shop-db-orders', 'schema:c1:list:orders'],
      ['detail', 'orders', 'Orders detail', 'shop-db-orders-detail', 'schema:c1:detail:orders'],
    ]);
    const list = pages[0]!.config as { columns: Array<{ column: string; label: string }>; displayColumn: string };
    expect(list.displayColumn).toBe('email');
    expect(list.columns.map((c) => c.column)).toEqual(['id', 'email', 'name']);
    expect(list.columns[1]).toEqual({ column: 'email', label: 'E-mail', format: 'email' });
    const detail = pages[1]!.config as { fields: Array<{ column: string; readOnly: boolean }> };
    expect(detail.fields.map((f) => f.column)).toEqual(['id', 'name', 'email']);
    expect(detail.fields[0]!.readOnly).toBe(true);
  });

  it('keeps secret columns off lists but on detail pages, flagged', () => {
    const model = applyOverrides(shop(), { tables: [{ table: 'customers', columns: [{ column: 'password_hash', secret: true }] }] });
    const { pages } = planPages({ ...connection, model, tables: ['customers'] });
    expect((pages[0]!.config.columns as Array<{ column: string }>).map((c) => c.column)).not.toContain('password_hash');
    expect(pages[1]!.config.fields).toContainEqual(expect.objectContaining({ column: 'password_hash', secret: true }));
  });

  it('generates a named hidden table when asked for it, and no detail page without a primary key', () => {
    const m = shop();
    m.tables.push(tbl('log', [col('at', 'datetime'), col('message', 'text')]));
    const model = applyOverrides(m, { tables: [{ table: 'products', hidden: true }] });
    const { pages, skipped } = planPages({ ...connection, model, tables: ['products', 'log'] });
    expect(pages.map((p) => `${p.kind}:${p.table}`)).toEqual(['list:products', 'detail:products', 'list:log']);
    expect(skipped).toEqual([{ table: 'log', kind: 'detail', reason: 'no-primary-key' }]);
    expect(pages[2]!.config.detailPage).toBeNull();
  });

  it(`shows at most ${LIST_COLUMNS_MAX} columns on a list`, () => {
    const wide = tbl('wide', [idCol(), ...Array.from({ length: 30 }, (_, i) => col(`c${i}`))]);
    const { pages } = planPages({ ...connection, model: applyOverrides({ dialect: 'sqlite', tables: [wide], enums: [] }, { tables: [] }) });
    expect(pages[0]!.config.columns).toHaveLength(LIST_COLUMNS_MAX);
  });
});
