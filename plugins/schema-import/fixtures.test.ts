import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { introspect } from '../../engine/schema/introspect/index.js';
import { canonicalModel, type SchemaModel, type Table } from '../../engine/schema/model.js';
import { FIXTURE_DIR, loadFixture, type FixtureDialect } from '../../test/fixtures/schema/load.js';
import { normaliseModel } from '../../test/fixtures/schema/normalise.js';
import { openDatabase } from '../../test/fixtures/schema/open.js';
import { createTempDatabase, databaseAvailable } from '../../test/helpers/databases.js';
import { parseSchemaFile, type ParseOutput } from './parsers/index.js';

/**
 * The shared fixture (test/fixtures/schema): its three DDL files and the real pg_dump and
 * mysqldump output of it must parse into the schema the fixture declares, and into what
 * introspection reads from a database loaded with it.
 */

const available = {
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

const read = (file: string) => readFileSync(join(FIXTURE_DIR, file), 'utf8');
const parsed: Record<string, ParseOutput> = {};

beforeAll(async () => {
  for (const [file, dialect] of [
    ['postgres.sql', 'postgres'],
    ['mysql.sql', 'mysql'],
    ['sqlite.sql', 'sqlite'],
    // The dumps are parsed without a dialect: it is detected.
    ['pg_dump.sql', undefined],
    ['mysqldump.sql', undefined],
  ] as const) {
    parsed[file] = await parseSchemaFile({ format: 'sql', dialect, source: read(file) });
  }
});

const TABLES = [
  'address',
  'audit_event',
  'café',
  'category',
  'order',
  'order_item',
  'payment',
  'product',
  'product_tag',
  'review',
  'setting',
  'stock_level',
  'tag',
  'user',
  'warehouse',
];
const VIEWS = ['active_product', 'order_summary'];

const table = (m: SchemaModel, name: string): Table => m.tables.find((t) => t.name === name)!;
const fk = (t: Table, column: string) => t.foreignKeys.find((f) => f.columns[0] === column)!;
/** View columns are not read from a file (the query is not parsed). */
const withoutViewColumns = (m: SchemaModel): SchemaModel => ({ ...m, tables: m.tables.map((t) => (t.kind === 'view' ? { ...t, columns: [] } : t)) });
/** normaliseModel, plus pg_dump's schema-qualified casts (`'draft'::public.product_status`). */
const normalised = (m: SchemaModel) => {
  const n = normaliseModel(withoutViewColumns(m));
  for (const t of n.tables) for (const c of t.columns) if (c.default) c.default = c.default.replace(/\.[a-z_]+$/, '');
  return n;
};

describe.each(['postgres.sql', 'mysql.sql', 'sqlite.sql', 'pg_dump.sql', 'mysqldump.sql'])('the fixture as %s', (file) => {
  const m = () => parsed[file]!.model;

  it('has the fixture’s tables and views', () => {
    expect(
      m()
        .tables.filter((t) => t.kind === 'table')
        .map((t) => t.name)
        .sort(),
    ).toEqual(TABLES);
    expect(
      m()
        .tables.filter((t) => t.kind === 'view')
        .map((t) => t.name)
        .sort(),
    ).toEqual(VIEWS);
  });

  it('has the columns and keys the fixture declares', () => {
    const user = table(m(), 'user');
    expect(user.columns.map((c) => c.name)).toEqual(['id', 'email', 'first name', "it's", 'is_active', 'api_token', 'profile', 'created_at']);
    expect(user.columns.find((c) => c.name === 'id')).toMatchObject({ type: 'integer', autoIncrement: true, nullable: false });
    expect(user.columns.find((c) => c.name === 'profile')!.type).toBe('json');
    expect(user.uniques.map((u) => u.columns).sort()).toEqual([['api_token'], ['email']]);
    expect(user.primaryKey!.columns).toEqual(['id']);

    expect(table(m(), 'order_item').primaryKey!.columns).toEqual(['order_id', 'line_no']);
    expect(table(m(), 'product_tag').primaryKey!.columns).toEqual(['product_id', 'tag_id']);
    expect(table(m(), 'stock_level').primaryKey!.columns).toEqual(['product_id', 'warehouse_code', 'taken_on']);
    expect(table(m(), 'setting').primaryKey!.columns).toEqual(['key']);
    expect(table(m(), 'category').uniques.map((u) => u.columns)).toEqual([['parent_id', 'slug']]);

    const product = table(m(), 'product');
    expect(product.columns.find((c) => c.name === 'price')).toMatchObject({ type: 'decimal', precision: 10, scale: 2, nullable: false });
    expect(product.columns.find((c) => c.name === 'status')).toMatchObject({ type: 'enum', enumValues: ['draft', 'active', 'archived'] });
    expect(product.columns.find((c) => c.name === 'sku')).toMatchObject({ type: 'string', maxLength: 12 });
    expect(product.checks.map((c) => c.expression.replace(/[`"()\s]|::numeric/g, ''))).toContain('price>=0');
    expect(product.indexes.filter((i) => !i.unique).map((i) => i.columns)).toEqual(expect.arrayContaining([['category_id'], ['name']]));
    expect(table(m(), 'order').indexes.find((i) => i.columns.length === 2)!.columns).toEqual(['user_id', 'placed_on']);

    const line = table(m(), 'order_item').columns.find((c) => c.name === 'line_total')!;
    expect(line.generated?.kind).toBe('stored');
    expect(line.generated!.expression!.replace(/[`"()\s]|::numeric/g, '')).toBe('quantity*unit_price');
    expect(table(m(), 'café').columns.map((c) => c.name)).toEqual(['id', 'name', 'größe', 'opens_at', 'rating']);
  });

  it('has the foreign keys with their actions', () => {
    const sameAsRestrict = (a: string) => (a === 'no action' ? 'restrict' : a);
    const actions = (t: string, c: string) => {
      const f = fk(table(m(), t), c);
      return [f.referencedTable, f.referencedColumns.join(','), sameAsRestrict(f.onDelete), sameAsRestrict(f.onUpdate)];
    };
    expect(actions('category', 'parent_id')).toEqual(['category', 'id', 'set null', 'restrict']);
    expect(actions('order', 'user_id')).toEqual(['user', 'id', 'restrict', 'restrict']);
    expect(actions('order_item', 'order_id')).toEqual(['order', 'id', 'cascade', 'restrict']);
    expect(actions('order_item', 'product_id')).toEqual(['product', 'id', 'restrict', 'cascade']);
    expect(actions('product_tag', 'product_id')).toEqual(['product', 'id', 'cascade', 'restrict']);
    expect(actions('product_tag', 'tag_id')).toEqual(['tag', 'id', 'cascade', 'restrict']);
    expect(actions('review', 'user_id')).toEqual(['user', 'id', 'set null', 'restrict']);
    expect(actions('warehouse', 'manager_id')).toEqual(['user', 'id', 'restrict', 'restrict']);
    expect(actions('stock_level', 'warehouse_code')).toEqual(['warehouse', 'code', 'restrict', 'cascade']);
    expect(m().tables.reduce((n, t) => n + t.foreignKeys.length, 0)).toBe(15);
  });
});

describe('the PostgreSQL files', () => {
  it('name the enum types, as declared', () => {
    for (const file of ['postgres.sql', 'pg_dump.sql']) {
      expect(parsed[file]!.model.enums).toEqual([
        { schema: 'public', name: expect.stringMatching(/_status$/), values: expect.any(Array) },
        { schema: 'public', name: expect.stringMatching(/_status$/), values: expect.any(Array) },
      ]);
      expect(canonicalModel(parsed[file]!.model).enums).toEqual([
        { schema: 'public', name: 'order_status', values: ['pending', 'paid', 'shipped', 'cancelled'] },
        { schema: 'public', name: 'product_status', values: ['draft', 'active', 'archived'] },
      ]);
    }
  });

  it('pg_dump: skips what is not schema (with warnings) and reads serial, identity and ALTER … ADD CONSTRAINT', () => {
    const { model, warnings } = parsed['pg_dump.sql']!;
    const messages = warnings.map((w) => w.message);
    expect(messages).toContain('skipped psql meta-command \\restrict');
    expect(messages).toContain('skipped SET: session settings are not part of the schema model');
    expect(messages.some((w) => w.startsWith('skipped CREATE SEQUENCE'))).toBe(true);
    expect(messages.some((w) => w.startsWith('skipped ALTER SEQUENCE'))).toBe(true);
    expect(messages.some((w) => /^skipped ALTER TABLE .* OWNER TO/.test(w))).toBe(true);
    expect(messages.every((w) => w.startsWith('skipped '))).toBe(true);
    expect(table(model, 'category').columns[0]).toMatchObject({ name: 'id', autoIncrement: true, default: null, nullable: false });
    expect(table(model, 'user').comment).toBe('People who can sign in');
    expect(table(model, 'user').columns.find((c) => c.name === 'first name')!.comment).toBe('Given name');
    expect(table(model, 'user').schema).toBe('public');
  });
});

describe('the MySQL files', () => {
  it('mysqldump: reads through versioned comments and view placeholders', () => {
    const { model, warnings } = parsed['mysqldump.sql']!;
    expect(model.dialect).toBe('mysql');
    expect(model.enums).toEqual([]);
    expect(table(model, 'order').columns.find((c) => c.name === 'status')).toMatchObject({
      type: 'enum',
      enumValues: ['pending', 'paid', 'shipped', 'cancelled'],
    });
    expect(table(model, 'user').primaryKey).toEqual({ name: 'PRIMARY', columns: ['id'] });
    expect(table(model, 'active_product')).toMatchObject({ kind: 'view', columns: [] });
    expect(warnings.some((w) => w.message === 'skipped LOCK TABLES: not part of the schema model' || w.message.startsWith('skipped SET'))).toBe(true);
  });
});

describe('every spelling of the fixture agrees', () => {
  it('the dumps parse like the files they were made from', () => {
    expect(normalised(parsed['pg_dump.sql']!.model)).toEqual(normalised(parsed['postgres.sql']!.model));
    expect(normalised(parsed['mysqldump.sql']!.model)).toEqual(normalised(parsed['mysql.sql']!.model));
  });

  it('the three dialects parse alike', () => {
    expect(normalised(parsed['mysql.sql']!.model)).toEqual(normalised(parsed['postgres.sql']!.model));
    expect(normalised(parsed['sqlite.sql']!.model)).toEqual(normalised(parsed['postgres.sql']!.model));
  });
});

/** Introspection's reading of the loaded fixture: the parse must say the same, view columns aside. */
async function introspected(dialect: FixtureDialect, target: string): Promise<SchemaModel> {
  const db = openDatabase(dialect, target);
  try {
    const { model } = await introspect(db, dialect);
    return withoutViewColumns({ ...model, tables: model.tables.map((t) => ({ ...t, rowEstimate: null })) });
  } finally {
    await db.destroy();
  }
}

describe('parsing equals introspecting', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('SQLite: sqlite.sql, apart from the constraint names SQLite does not keep', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schema-import-'));
    dirs.push(dir);
    await loadFixture('sqlite', join(dir, 'f.sqlite'));
    const unnamed = (m: SchemaModel) =>
      canonicalModel({
        ...m,
        tables: m.tables.map((t) => ({
          ...t,
          uniques: t.uniques.map((u) => ({ ...u, name: null })),
          indexes: t.indexes.map((i) => ({ ...i, name: i.name?.startsWith('sqlite_autoindex_') ? null : i.name })),
        })),
      });
    const fromFile = canonicalModel(parsed['sqlite.sql']!.model);
    for (const t of fromFile.tables)
      t.indexes = t.indexes.map((i) => ({ ...i, name: t.uniques.some((u) => u.name === i.name && u.name !== null) || i.name === null ? null : i.name }));
    expect(unnamed(fromFile)).toEqual(unnamed(await introspected('sqlite', join(dir, 'f.sqlite'))));
  });

  it.runIf(available.postgres)('PostgreSQL: pg_dump.sql exactly, but for its schema-qualified casts', async () => {
    const temp = await createTempDatabase('postgres');
    try {
      await loadFixture('postgres', temp.url);
      const fromDump = canonicalModel(parsed['pg_dump.sql']!.model);
      for (const t of fromDump.tables) for (const c of t.columns) if (c.default) c.default = c.default.replace('::public.', '::');
      expect(fromDump).toEqual(await introspected('postgres', temp.url));
    } finally {
      await temp.drop();
    }
  });

  it.runIf(available.postgres)('PostgreSQL: postgres.sql, with the names PostgreSQL gives unnamed constraints', async () => {
    const temp = await createTempDatabase('postgres');
    try {
      await loadFixture('postgres', temp.url);
      const db = await introspected('postgres', temp.url);
      const fromFile = canonicalModel(parsed['postgres.sql']!.model);
      const names = (m: SchemaModel) =>
        m.tables.map((t) => [
          t.name,
          t.primaryKey?.name,
          t.foreignKeys.map((f) => f.name),
          t.uniques.map((u) => u.name),
          t.indexes.map((i) => i.name),
          t.checks.map((c) => c.name),
        ]);
      expect(names(fromFile)).toEqual(names(db));
      // Types as introspection maps them, column by column.
      const types = (m: SchemaModel) =>
        m.tables.map((t) => t.columns.map((c) => [c.name, c.type, c.nativeType, c.nullable, c.autoIncrement, c.maxLength, c.precision, c.scale, c.enumValues]));
      expect(types(fromFile)).toEqual(types(db));
    } finally {
      await temp.drop();
    }
  });

  it.runIf(available.mysql)('MariaDB/MySQL: mysqldump.sql, but for the action MariaDB reports for an unspecified one', async () => {
    const temp = await createTempDatabase('mysql');
    try {
      await loadFixture('mysql', temp.url);
      const db = await introspected('mysql', temp.url);
      const restrict = (m: SchemaModel) =>
        canonicalModel({
          ...m,
          tables: m.tables.map((t) => ({
            ...t,
            foreignKeys: t.foreignKeys.map((f) => ({
              ...f,
              onDelete: f.onDelete === 'no action' ? 'restrict' : f.onDelete,
              onUpdate: f.onUpdate === 'no action' ? 'restrict' : f.onUpdate,
            })),
          })),
        });
      expect(restrict(parsed['mysqldump.sql']!.model)).toEqual(restrict(db));
    } finally {
      await temp.drop();
    }
  });
});
