import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { schemaModelSchema, type Table } from '../../../engine/schema/model.js';
import { SchemaParseError } from './diagnostics.js';
import { parseDrizzle } from './drizzle.js';
import { newColumn } from './model.js';

const PG = `import { sql } from 'drizzle-orm';
import { relations } from 'drizzle-orm';
import {
  bigint, boolean, check, foreignKey, index, integer, jsonb, numeric, pgEnum, pgTable, primaryKey,
  serial, text, timestamp, unique, uniqueIndex, uuid, varchar, type AnyPgColumn,
} from 'drizzle-orm/pg-core';

export const role = pgEnum('role', ['admin', 'editor', 'viewer']);

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).defaultNow().notNull(),
  updatedAt: timestamp('updated_at', { precision: 3 }),
};

export const users = pgTable('users', {
  id: serial('id').primaryKey(),
  email: varchar('email', { length: 255 }).notNull().unique(),
  role: role('role').default('viewer').notNull(),
  active: boolean('active').default(true),
  apiToken: uuid('api_token').defaultRandom(),
  ...timestamps,
}, (t) => [uniqueIndex('users_email_lower').on(t.email), index().on(t.role)]);

export const categories = pgTable('categories', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  parentId: integer('parent_id').references((): AnyPgColumn => categories.id, { onDelete: 'set null' }),
  slug: text('slug').notNull(),
}, (t) => ({
  parentSlug: unique('categories_parent_slug').on(t.parentId, t.slug),
}));

export const products = pgTable('products', {
  id: serial('id').primaryKey(),
  categoryId: integer('category_id').references(() => categories.id, { onDelete: 'cascade', onUpdate: 'no action' }),
  price: numeric('price', { precision: 10, scale: 2 }).notNull().default('0'),
  quantity: integer('quantity').notNull().default(1),
  total: numeric('total').generatedAlwaysAs(sql\`\${'price'} * 2\`),
  attributes: jsonb('attributes').default({}),
  tags: text('tags').array(),
  views: bigint('views', { mode: 'number' }).default(0),
}, (t) => [check('price_positive', sql\`\${t.price} >= 0\`), index('products_category_idx').on(t.categoryId)]);

export const orderItems = pgTable('order_items', {
  orderId: integer('order_id').notNull(),
  lineNo: integer('line_no').notNull(),
  productId: integer('product_id').notNull(),
}, (table) => [
  primaryKey({ columns: [table.orderId, table.lineNo] }),
  foreignKey({ columns: [table.productId], foreignColumns: [products.id], name: 'order_items_product' }).onDelete('restrict').onUpdate('cascade'),
]);

export const usersRelations = relations(users, ({ many }) => ({ items: many(orderItems) }));
export type User = typeof users.$inferSelect;
`;

const byName = (tables: Table[], name: string) => tables.find((t) => t.name === name)!;

describe('Drizzle schema (pg-core)', () => {
  const { model, warnings } = parseDrizzle(PG);

  it('is a valid model of the tables, with the enum', () => {
    expect(schemaModelSchema.safeParse(model).success).toBe(true);
    expect(model.dialect).toBe('postgres');
    expect(model.tables.map((t) => t.name)).toEqual(['users', 'categories', 'products', 'order_items']);
    expect(model.enums).toEqual([{ schema: 'public', name: 'role', values: ['admin', 'editor', 'viewer'] }]);
    expect(warnings).toEqual([]);
  });

  it('reaches the exact users table (spread columns, enum, defaults, unique, indexes)', () => {
    expect(byName(model.tables, 'users')).toEqual({
      schema: 'public',
      name: 'users',
      kind: 'table',
      columns: [
        newColumn('id', { type: 'integer', nativeType: 'integer', nullable: false, autoIncrement: true }),
        newColumn('email', { type: 'string', nativeType: 'character varying(255)', nullable: false, maxLength: 255 }),
        newColumn('role', { type: 'enum', nativeType: 'role', nullable: false, default: "'viewer'", enumValues: ['admin', 'editor', 'viewer'] }),
        newColumn('active', { type: 'boolean', nativeType: 'boolean', default: 'true' }),
        newColumn('api_token', { type: 'uuid', nativeType: 'uuid', default: 'gen_random_uuid()' }),
        newColumn('created_at', { type: 'datetime', nativeType: 'timestamp with time zone', nullable: false, default: 'now()' }),
        newColumn('updated_at', { type: 'datetime', nativeType: 'timestamp(3) without time zone' }),
      ],
      primaryKey: { name: 'users_pkey', columns: ['id'] },
      foreignKeys: [],
      uniques: [
        { name: 'users_email_unique', columns: ['email'] },
        { name: 'users_email_lower', columns: ['email'] },
      ],
      indexes: [
        { name: 'users_email_unique', columns: ['email'], unique: true },
        { name: 'users_email_lower', columns: ['email'], unique: true },
        { name: null, columns: ['role'], unique: false },
      ],
      checks: [],
      rowEstimate: null,
      comment: null,
    });
  });

  it('reads self and forward references with their actions', () => {
    expect(byName(model.tables, 'categories').foreignKeys).toEqual([
      {
        name: 'categories_parent_id_categories_id_fk',
        columns: ['parent_id'],
        referencedSchema: 'public',
        referencedTable: 'categories',
        referencedColumns: ['id'],
        onDelete: 'set null',
        onUpdate: 'no action',
      },
    ]);
    expect(byName(model.tables, 'categories').uniques).toEqual([{ name: 'categories_parent_slug', columns: ['parent_id', 'slug'] }]);
    expect(byName(model.tables, 'categories').columns[0]).toMatchObject({ name: 'id', autoIncrement: true, nullable: false });
    expect(byName(model.tables, 'products').foreignKeys).toEqual([
      {
        name: 'products_category_id_categories_id_fk',
        columns: ['category_id'],
        referencedSchema: 'public',
        referencedTable: 'categories',
        referencedColumns: ['id'],
        onDelete: 'cascade',
        onUpdate: 'no action',
      },
    ]);
  });

  it('reads composite keys and table-level foreign keys', () => {
    const items = byName(model.tables, 'order_items');
    expect(items.primaryKey).toEqual({ name: 'order_items_order_id_line_no_pk', columns: ['order_id', 'line_no'] });
    expect(items.foreignKeys).toEqual([
      {
        name: 'order_items_product',
        columns: ['product_id'],
        referencedSchema: 'public',
        referencedTable: 'products',
        referencedColumns: ['id'],
        onDelete: 'restrict',
        onUpdate: 'cascade',
      },
    ]);
  });

  it('reads numeric options, sql defaults, generated columns, checks and arrays', () => {
    const products = byName(model.tables, 'products');
    const c = (n: string) => products.columns.find((x) => x.name === n)!;
    expect(c('price')).toMatchObject({ type: 'decimal', nativeType: 'numeric(10,2)', precision: 10, scale: 2, default: "'0'", nullable: false });
    expect(c('quantity')).toMatchObject({ default: '1', nullable: false });
    expect(c('total').generated).toEqual({ kind: 'stored', expression: "'price' * 2" });
    expect(c('attributes')).toMatchObject({ type: 'json', default: "'{}'" });
    expect(c('tags')).toMatchObject({ type: 'other', nativeType: 'text[]' });
    expect(c('views')).toMatchObject({ type: 'bigint', default: '0' });
    expect(products.checks).toEqual([{ name: 'price_positive', expression: '"price" >= 0' }]);
    expect(products.indexes).toEqual([{ name: 'products_category_idx', columns: ['category_id'], unique: false }]);
  });
});

describe('Drizzle in the other dialects', () => {
  it('mysql-core', () => {
    const { model } = parseDrizzle(`import { mysqlTable, int, varchar, mysqlEnum, boolean, serial } from 'drizzle-orm/mysql-core';
export const t = mysqlTable('t', {
  id: serial('id').primaryKey(),
  n: int('n', { unsigned: true }).notNull(),
  kind: mysqlEnum('kind', ['a', 'b']).default('a'),
  ok: boolean('ok'),
  name: varchar('name', { length: 50 }),
});`);
    expect(model.dialect).toBe('mysql');
    const t = model.tables[0]!;
    expect(t.schema).toBeNull();
    expect(t.columns.map((c) => [c.name, c.type, c.nativeType])).toEqual([
      ['id', 'bigint', 'bigint unsigned'],
      ['n', 'integer', 'int unsigned'],
      ['kind', 'enum', "enum('a','b')"],
      ['ok', 'boolean', 'tinyint(1)'],
      ['name', 'string', 'varchar(50)'],
    ]);
    expect(t.primaryKey).toEqual({ name: 'PRIMARY', columns: ['id'] });
  });

  it('sqlite-core, with column builders given as a callback', () => {
    const { model } = parseDrizzle(`import { sqliteTable } from 'drizzle-orm/sqlite-core';
export const notes = sqliteTable('notes', (t) => ({
  id: t.integer().primaryKey({ autoIncrement: true }),
  body: t.text().notNull(),
}));`);
    expect(model.dialect).toBe('sqlite');
    expect(model.tables[0]!.columns).toEqual([
      newColumn('id', { type: 'integer', nativeType: 'integer', nullable: false, autoIncrement: true }),
      newColumn('body', { type: 'text', nativeType: 'text', nullable: false }),
    ]);
  });
});

describe('Drizzle files are never run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'drizzle-import-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports imports of other code and unknown calls as warnings, and runs nothing', () => {
    const marker = join(dir, 'ran');
    const helper = join(dir, 'helper.mjs');
    // If anything executed the schema, or imported the helper, the marker file would appear.
    writeFileSync(helper, `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'x'); export const audit = () => ({});`);
    const source = `import { pgTable, integer, text } from 'drizzle-orm/pg-core';
import { audit } from ${JSON.stringify(helper)};
import * as fs from 'node:fs';

fs.writeFileSync(${JSON.stringify(marker)}, 'x');
(globalThis as any).__schemaImportRan = true;

export const items = pgTable('items', {
  id: integer('id').primaryKey(),
  name: text('name').default((() => { fs.writeFileSync(${JSON.stringify(marker)}, 'x'); return 'x'; })()),
  ...audit(),
  extra: audit('x'),
});
export const other = audit();
`;
    const { model, warnings } = parseDrizzle(source);
    expect(existsSync(marker)).toBe(false);
    expect((globalThis as any).__schemaImportRan).toBeUndefined();
    expect(model.tables.map((t) => t.name)).toEqual(['items']);
    expect(model.tables[0]!.columns.map((c) => c.name)).toEqual(['id', 'name']);
    expect(model.tables[0]!.columns[1]!.default).toBeNull();
    expect(warnings.map((w) => [w.line, w.message])).toEqual([
      [2, `import from '${helper}' is not followed: nothing is imported or run, so what it defines is unknown here`],
      [3, "import from 'node:fs' is not followed: nothing is imported or run, so what it defines is unknown here"],
      [5, expect.stringMatching(/^fs\.writeFileSync\(.* is not read \(only declarations of tables, enums and schemas are; nothing is run\)$/)],
      [6, '(globalThis as any).__schemaImportRan = true; is not read (only declarations of tables, enums and schemas are; nothing is run)'],
      [10, expect.stringMatching(/^\.default\(\(\(\) => \{ fs\.writeFileSync\(.*\) cannot be read without running code; the default is left empty$/)],
      [11, '...audit() is not an object declared in this file; its columns are unknown'],
      [12, `column extra is skipped: audit comes from '${helper}', which is not followed (nothing is imported or run)`],
      [14, `other is skipped: audit comes from '${helper}', which is not followed (nothing is imported or run)`],
    ]);
  });

  it('refuses a syntax error with its position', () => {
    try {
      parseDrizzle("import { pgTable } from 'drizzle-orm/pg-core';\nexport const t = pgTable('t', {\n  id: integer('id') primaryKey(),\n});\n");
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SchemaParseError);
      // The missing `.` before primaryKey: the parser expected a comma there.
      expect(err).toMatchObject({ line: 3, column: 21, detail: "',' expected." });
    }
  });

  it('refuses a table whose name is computed', () => {
    expect(() => parseDrizzle("import { pgTable } from 'drizzle-orm/pg-core';\nconst n = 'x';\nexport const t = pgTable(n, {});\n")).toThrow(
      'line 3, column 26: a table needs its name as a string literal',
    );
  });
});
