import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../schema/effective.js';
import { col, idCol, model, shop, tbl } from '../../schema/testing.js';
import type { Overrides } from '../../schema/provides.js';
import { storedPart } from './definition.js';
import { cascadeTargets, connectionPrefix, generatedDefinition, keyFill, type TableContext } from './generate.js';
import { resolveStored } from './resolve.js';
import { validateDefinition } from './validate.js';

const connection = { id: 'c1', name: 'Shop DB', dialect: 'sqlite' as const, readOnly: false };

function ctxOf(m: ReturnType<typeof model>, table: string, overrides: Overrides = { tables: [] }, readOnly = false): TableContext {
  const eff = applyOverrides(m, overrides);
  return { connection: { ...connection, readOnly }, model: eff, table: eff.tables.find((t) => t.ref === table)! };
}

describe('the generated endpoint', () => {
  it('exposes every column that is neither secret nor personal, and writes all but the key', () => {
    const ctx = ctxOf(shop(), 'customers', {
      tables: [
        {
          table: 'customers',
          columns: [
            { column: 'password_hash', secret: true },
            { column: 'email', personal: true },
          ],
        },
      ],
    });
    const def = generatedDefinition(ctx, 'customers');
    expect(def).toMatchObject({
      id: null,
      ref: 'customers',
      connectionId: 'c1',
      table: 'customers',
      virtual: true,
      generated: true,
      pk: ['id'],
      keyFill: 'database',
    });
    expect(def.columns).toEqual(['id', 'name']);
    expect(def.writable).toEqual(['name']);
    expect(def).toMatchObject({ rateLimit: 120, shape: 'wrapped', filters: [], allowCascade: false, serviceRole: false, booking: null });
  });

  it('withholds DELETE when another table cascades from it, and only then', () => {
    // orders.customer_id → customers ON DELETE CASCADE
    expect(generatedDefinition(ctxOf(shop(), 'customers'), 'customers').methods).toEqual(['GET', 'POST', 'PATCH', 'PUT', 'BATCH']);
    expect(generatedDefinition(ctxOf(shop(), 'orders'), 'orders').methods).toEqual(['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'BATCH']);
    expect(cascadeTargets(ctxOf(shop(), 'customers').model, ctxOf(shop(), 'customers').table, false)).toEqual(['orders']);
  });

  it('counts a self-reference only when default filters narrow the endpoint', () => {
    const tree = model([
      tbl('node', [idCol(), col('parent_id', 'integer')], {
        foreignKeys: [
          {
            name: null,
            columns: ['parent_id'],
            referencedSchema: null,
            referencedTable: 'node',
            referencedColumns: ['id'],
            onDelete: 'cascade',
            onUpdate: 'no action',
          },
        ],
      }),
    ]);
    const ctx = ctxOf(tree, 'node');
    expect(cascadeTargets(ctx.model, ctx.table, false)).toEqual([]);
    expect(cascadeTargets(ctx.model, ctx.table, true)).toEqual(['node']);
  });

  it('offers POST only when the server can choose the key', () => {
    const m = model([
      tbl('natural', [col('code', 'string', { nullable: false }), col('label')], { primaryKey: { name: null, columns: ['code'] } }),
      tbl('uuids', [col('id', 'uuid', { nullable: false }), col('label')]),
      tbl('defaulted', [col('id', 'string', { nullable: false, default: 'gen_id()' }), col('label')]),
      tbl('pair', [col('a', 'integer', { nullable: false }), col('b', 'integer', { nullable: false })], { primaryKey: { name: null, columns: ['a', 'b'] } }),
    ]);
    expect(['natural', 'uuids', 'defaulted', 'pair'].map((t) => keyFill(ctxOf(m, t).table))).toEqual([null, 'uuid', 'database', null]);
    expect(generatedDefinition(ctxOf(m, 'natural'), 'natural').methods).toEqual(['GET', 'PATCH', 'PUT', 'DELETE', 'BATCH']);
    expect(generatedDefinition(ctxOf(m, 'uuids'), 'uuids').methods).toContain('POST');
  });

  it('offers GET only on a table without a primary key, a view, or a read-only connection', () => {
    const m = model([tbl('log', [col('line')]), tbl('v', [col('x')], { kind: 'view' }), tbl('t', [idCol(), col('x')])]);
    expect(generatedDefinition(ctxOf(m, 'log'), 'log').methods).toEqual(['GET']);
    expect(generatedDefinition(ctxOf(m, 'log'), 'log').writable).toEqual([]);
    expect(generatedDefinition(ctxOf(m, 'v'), 'v').methods).toEqual(['GET']);
    expect(generatedDefinition(ctxOf(m, 't', { tables: [] }, true), 't').methods).toEqual(['GET']);
  });

  it('prefixes with a path-safe connection name', () => {
    expect(connectionPrefix('Shop DB')).toBe('Shop_DB_');
    expect(connectionPrefix('café/2')).toBe('café_2_');
  });
});

describe('a stored endpoint against a changing schema', () => {
  const stored = (ctx: TableContext, edited = false) => ({
    id: 's1',
    ref: 'customers',
    connectionId: 'c1',
    table: 'customers',
    generated: true,
    edited,
    addonKey: null,
    definition: storedPart(generatedDefinition(ctx, 'customers')),
  });

  it('keeps its column list: a column added later stays out', () => {
    const before = ctxOf(shop(), 'customers');
    const grown = shop();
    grown.tables[0]!.columns.push(col('nickname'));
    const { def, problems } = resolveStored(stored(before), ctxOf(grown, 'customers'));
    expect(def.columns).not.toContain('nickname');
    expect(def.virtual).toBe(false);
    expect(problems).toEqual([]);
  });

  it('drops a column since marked secret, and a personal one unless an admin listed it', () => {
    const row = stored(ctxOf(shop(), 'customers'));
    const later = ctxOf(shop(), 'customers', {
      tables: [
        {
          table: 'customers',
          columns: [
            { column: 'password_hash', secret: true },
            { column: 'email', personal: true },
          ],
        },
      ],
    });
    expect(resolveStored(row, later).def.columns).toEqual(['id', 'name']);
    expect(resolveStored({ ...row, edited: true }, later).def.columns).toEqual(['id', 'name', 'email']);
  });

  it('offers nothing once a column a default filter needs is gone, and withdraws DELETE when a cascade appears', () => {
    const ctx = ctxOf(shop(), 'orders');
    const row = {
      ...stored(ctx),
      ref: 'orders',
      table: 'orders',
      definition: { ...storedPart(generatedDefinition(ctx, 'orders')), filters: [{ column: 'status', op: 'eq' as const, value: 'open' }] },
    };
    expect(resolveStored(row, ctx).def.methods).toContain('DELETE');
    const dropped = shop();
    dropped.tables[1]!.columns = dropped.tables[1]!.columns.filter((c) => c.name !== 'status');
    const gone = resolveStored(row, ctxOf(dropped, 'orders'));
    expect(gone.def.methods).toEqual([]);
    expect(gone.problems).toContainEqual({ reason: 'column-missing', column: 'status' });

    const cascading = shop();
    cascading.tables.push(
      tbl('refunds', [idCol(), col('order_id', 'integer')], {
        foreignKeys: [
          {
            name: null,
            columns: ['order_id'],
            referencedSchema: null,
            referencedTable: 'orders',
            referencedColumns: ['id'],
            onDelete: 'cascade',
            onUpdate: 'no action',
          },
        ],
      }),
    );
    expect(resolveStored(row, ctxOf(cascading, 'orders')).def.methods).not.toContain('DELETE');
    expect(resolveStored({ ...row, definition: { ...row.definition, allowCascade: true } }, ctxOf(cascading, 'orders')).def.methods).toContain('DELETE');
  });

  it('offers nothing when its table is gone', () => {
    const { def, problems } = resolveStored(stored(ctxOf(shop(), 'customers')), null);
    expect(def.methods).toEqual([]);
    expect(problems).toEqual([{ reason: 'table-missing' }]);
  });
});

describe('validating a definition', () => {
  it('names the field of each problem', () => {
    const ctx = ctxOf(shop(), 'customers', { tables: [{ table: 'customers', columns: [{ column: 'password_hash', secret: true }] }] });
    const def = { ...storedPart(generatedDefinition(ctx, 'customers')) };
    const issues = validateDefinition(ctx, {
      ...def,
      columns: ['id', 'name', 'nope', 'password_hash'],
      writable: ['name', 'email'],
      filterable: [],
      searchable: [],
      orderable: [],
      methods: ['GET', 'DELETE'],
      filters: [{ column: 'ghost', op: 'eq', value: 1 }],
      needsSession: true,
    });
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ['body.columns.2', 'unknown_column'],
      ['body.columns.3', 'secret_column'],
      ['body.writable.1', 'not_exposed'],
      ['body.filters.0.column', 'unknown_column'],
      ['body.needsSession', 'needs_identity'],
      ['body.methods.1', 'method_not_offered'],
    ]);
    expect(issues.find((i) => i.path === 'body.methods.1')!.message).toContain('orders');
    expect(validateDefinition(ctx, { ...def, methods: ['GET', 'DELETE'], allowCascade: true })).toEqual([]);
  });
});
