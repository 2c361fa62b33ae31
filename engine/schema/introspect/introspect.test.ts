import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_DIR, loadFixture, runScript, type FixtureDialect } from '../../../test/fixtures/schema/load.js';
import { manyTablesSql } from '../../../test/fixtures/schema/many-tables.js';
import { normaliseExpression, normaliseModel } from '../../../test/fixtures/schema/normalise.js';
import { openDatabase } from '../../../test/fixtures/schema/open.js';
import { createTempDatabase, databaseAvailable } from '../../../test/helpers/databases.js';
import { schemaModelSchema, type SchemaModel, type Table } from '../model.js';
import { introspect } from './index.js';

const available: Record<FixtureDialect, boolean> = {
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
  sqlite: true,
};
const DIALECTS = ['postgres', 'mysql', 'sqlite'] as const;
const dir = mkdtempSync(join(tmpdir(), 'introspect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Scratch {
  target: string;
  db: Kysely<any>;
  drop(): Promise<void>;
}

/** An empty database of the dialect with `script` run in it. */
async function scratch(dialect: FixtureDialect, script: string | null): Promise<Scratch> {
  let target: string;
  let drop: () => Promise<void> = async () => undefined;
  if (dialect === 'sqlite') {
    target = join(dir, `${Math.random().toString(36).slice(2)}.sqlite`);
  } else {
    const temp = await createTempDatabase(dialect);
    target = temp.url;
    drop = temp.drop;
  }
  if (script === null) await loadFixture(dialect, target);
  else await runScript(dialect, target, script);
  const db = openDatabase(dialect, target);
  return {
    target,
    db,
    async drop() {
      await db.destroy();
      await drop();
    },
  };
}

const fixture: Partial<Record<FixtureDialect, { model: SchemaModel; queries: number; scratch: Scratch }>> = {};

beforeAll(async () => {
  for (const d of DIALECTS) {
    if (!available[d]) continue;
    const s = await scratch(d, null);
    fixture[d] = { ...(await introspect(s.db, d)), scratch: s };
  }
});
afterAll(async () => {
  for (const f of Object.values(fixture)) await f.scratch.drop();
});

function model(d: FixtureDialect): SchemaModel {
  const f = fixture[d];
  if (!f) throw new Error(`${d} fixture not loaded`);
  return f.model;
}
function table(d: FixtureDialect, name: string): Table {
  const t = model(d).tables.find((x) => x.name === name);
  if (!t) throw new Error(`${d}: no table ${name}`);
  return t;
}
const column = (d: FixtureDialect, t: string, c: string) => {
  const col = table(d, t).columns.find((x) => x.name === c);
  if (!col) throw new Error(`${d}: no column ${t}.${c}`);
  return col;
};
const fk = (d: FixtureDialect, t: string, col: string) => table(d, t).foreignKeys.find((f) => f.columns.join() === col);

describe.runIf(available.postgres)('introspect: fixture, PostgreSQL and SQLite agree', () => {
  it('normalised models are deep-equal', () => {
    expect(normaliseModel(model('postgres'))).toEqual(normaliseModel(model('sqlite')));
  });
});

describe.runIf(available.mysql)('introspect: fixture, MariaDB/MySQL and SQLite agree', () => {
  it('normalised models are deep-equal', () => {
    expect(normaliseModel(model('mysql'))).toEqual(normaliseModel(model('sqlite')));
  });
});

for (const d of DIALECTS) {
  describe.runIf(available[d])(`introspect: fixture on ${d}`, () => {
    it('answers a valid, canonical model in a constant number of queries', () => {
      expect(schemaModelSchema.parse(model(d))).toEqual(model(d));
      expect(model(d).dialect).toBe(d);
      expect(fixture[d]?.queries).toBe({ postgres: 5, mysql: 6, sqlite: 3 }[d]);
      expect(model(d).tables).toHaveLength(17);
    });

    it('keeps identifiers exactly as stored', () => {
      const names = model(d).tables.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['user', 'order', 'café', 'setting']));
      expect(table(d, 'user').columns.map((c) => c.name)).toEqual(['id', 'email', 'first name', "it's", 'is_active', 'api_token', 'profile', 'created_at']);
      expect(table(d, 'café').columns.map((c) => c.name)).toContain('größe');
      expect(table(d, 'setting').primaryKey?.columns).toEqual(['key']);
    });

    it('reads composite primary keys in key order', () => {
      expect(table(d, 'order_item').primaryKey?.columns).toEqual(['order_id', 'line_no']);
      expect(table(d, 'stock_level').primaryKey?.columns).toEqual(['product_id', 'warehouse_code', 'taken_on']);
      expect(table(d, 'product_tag').primaryKey?.columns).toEqual(['product_id', 'tag_id']);
    });

    it('reads foreign keys with their actions, including a self-reference', () => {
      expect(fk(d, 'order_item', 'order_id')).toMatchObject({ referencedTable: 'order', referencedColumns: ['id'], onDelete: 'cascade' });
      expect(fk(d, 'order_item', 'product_id')).toMatchObject({ referencedTable: 'product', onDelete: 'restrict', onUpdate: 'cascade' });
      expect(fk(d, 'review', 'user_id')).toMatchObject({ referencedTable: 'user', onDelete: 'set null' });
      expect(fk(d, 'order', 'user_id')).toMatchObject({ referencedTable: 'user', onDelete: 'restrict' });
      expect(fk(d, 'category', 'parent_id')).toMatchObject({ referencedTable: 'category', referencedColumns: ['id'], onDelete: 'set null' });
      expect(fk(d, 'stock_level', 'warehouse_code')).toMatchObject({ referencedTable: 'warehouse', referencedColumns: ['code'], onUpdate: 'cascade' });
      // MariaDB spells an action left out as RESTRICT, PostgreSQL and SQLite as NO ACTION.
      expect(fk(d, 'stock_level', 'product_id')?.onDelete).toBe(d === 'mysql' ? 'restrict' : 'no action');
    });

    it('reads views as views, with their columns', () => {
      expect(table(d, 'active_product')).toMatchObject({ kind: 'view', primaryKey: null, rowEstimate: null });
      expect(table(d, 'order_summary').columns.map((c) => [c.name, c.type])).toEqual([
        ['id', 'integer'],
        ['email', 'string'],
        ['placed_on', 'date'],
        ['total', 'decimal'],
      ]);
    });

    it('maps types, lengths, precision and auto-increment', () => {
      expect(column(d, 'user', 'id')).toMatchObject({ type: 'integer', autoIncrement: true, nullable: false, default: null });
      expect(column(d, 'user', 'email')).toMatchObject({ type: 'string', maxLength: 255, nullable: false });
      expect(column(d, 'user', 'first name')).toMatchObject({ type: 'string', maxLength: 100, nullable: true });
      expect(column(d, 'user', 'is_active')).toMatchObject({ type: 'boolean', nullable: false });
      expect(column(d, 'user', 'created_at')).toMatchObject({ type: 'datetime' });
      expect(column(d, 'product', 'price')).toMatchObject({ type: 'decimal', precision: 10, scale: 2 });
      expect(column(d, 'product', 'description').type).toBe('text');
      expect(column(d, 'product', 'weight_kg').type).toBe('float');
      expect(column(d, 'audit_event', 'sequence_no').type).toBe('bigint');
      expect(column(d, 'order', 'placed_on').type).toBe('date');
      expect(column(d, 'café', 'opens_at').type).toBe('time');
      expect(column(d, 'payment', 'receipt').type).toBe('binary');
      expect(column(d, 'payment', 'reference').type).toBe(d === 'mysql' ? 'string' : 'uuid');
      expect(column(d, 'order_item', 'order_id').autoIncrement).toBe(false);
      expect(column(d, 'setting', 'key').autoIncrement).toBe(false);
      for (const [t, c] of [
        ['user', 'profile'],
        ['product', 'attributes'],
        ['payment', 'raw_response'],
        ['audit_event', 'payload'],
      ] as const) {
        expect(column(d, t, c).type, `${t}.${c}`).toBe('json');
      }
    });

    it('reads enum values', () => {
      expect(column(d, 'product', 'status')).toMatchObject({ type: 'enum', enumValues: ['draft', 'active', 'archived'] });
      expect(column(d, 'order', 'status')).toMatchObject({ type: 'enum', enumValues: ['pending', 'paid', 'shipped', 'cancelled'] });
    });

    it('reads generated columns with their expression', () => {
      const c = column(d, 'order_item', 'line_total');
      expect(c).toMatchObject({ type: 'decimal', default: null, generated: { kind: 'stored' } });
      expect(normaliseExpression(c.generated?.expression ?? '')).toBe('quantity*unit_price');
    });

    it('reads uniques, indexes and checks', () => {
      expect(table(d, 'category').uniques.map((u) => u.columns)).toEqual([['parent_id', 'slug']]);
      expect(table(d, 'user').uniques.map((u) => u.columns)).toEqual([['api_token'], ['email']]);
      expect(table(d, 'order').indexes.map((i) => [i.columns, i.unique])).toEqual([[['user_id', 'placed_on'], false]]);
      expect(table(d, 'tag').indexes.map((i) => [i.columns, i.unique])).toEqual([[['label'], true]]);
      expect(table(d, 'product').checks.map((c) => normaliseExpression(c.expression))).toContain('price>=0');
      expect(table(d, 'review').checks.map((c) => normaliseExpression(c.expression))).toEqual(['rating>=1andrating<=5']);
    });

    it('reads defaults as SQL expressions', () => {
      expect(column(d, 'address', 'country').default).toMatch(/^'FR'(::bpchar)?$/);
      expect(column(d, 'order_item', 'quantity').default).toBe('1');
      expect(column(d, 'address', 'postcode').default).toBeNull();
      expect(column(d, 'product', 'status').default).toMatch(/^'draft'/);
    });
  });
}

describe.runIf(available.postgres)('introspect: PostgreSQL specifics', () => {
  it('reads serial and identity columns as auto-increment without a default', () => {
    expect(column('postgres', 'category', 'id')).toMatchObject({ autoIncrement: true, default: null, nativeType: 'integer' });
    expect(column('postgres', 'product', 'id')).toMatchObject({ autoIncrement: true, default: null });
  });

  it('names schemas, enum types and comments', () => {
    expect(table('postgres', 'user')).toMatchObject({ schema: 'public', comment: 'People who can sign in' });
    expect(column('postgres', 'user', 'first name').comment).toBe('Given name');
    expect(column('postgres', 'product', 'status').nativeType).toBe('product_status');
    expect(model('postgres').enums).toEqual([
      { schema: 'public', name: 'order_status', values: ['pending', 'paid', 'shipped', 'cancelled'] },
      { schema: 'public', name: 'product_status', values: ['draft', 'active', 'archived'] },
    ]);
  });

  it('gives a row estimate once the table is analysed, null before', async () => {
    const s = await scratch('postgres', 'create table a (id serial primary key); create table b (id int); insert into a select from generate_series(1, 40);');
    try {
      const before = await introspect(s.db, 'postgres');
      expect(before.model.tables.map((t) => t.rowEstimate)).toEqual([null, null]);
      await sql`analyze a`.execute(s.db);
      const after = await introspect(s.db, 'postgres');
      expect(after.model.tables.find((t) => t.name === 'a')?.rowEstimate).toBe(40);
    } finally {
      await s.drop();
    }
  });

  it('reads every non-system schema by default, or the ones asked for', async () => {
    const s = await scratch(
      'postgres',
      'create schema "Other"; create table public.a (id int primary key); create table "Other".x (id int primary key, a_id int references public.a (id));',
    );
    try {
      const all = await introspect(s.db, 'postgres');
      expect(all.model.tables.map((t) => `${t.schema}.${t.name}`)).toEqual(['Other.x', 'public.a']);
      const other = await introspect(s.db, 'postgres', { schemas: ['Other'] });
      expect(other.model.tables.map((t) => t.name)).toEqual(['x']);
      expect(other.model.tables[0]?.foreignKeys[0]).toMatchObject({ referencedSchema: 'public', referencedTable: 'a', referencedColumns: ['id'] });
      expect(other.queries).toBe(all.queries);
    } finally {
      await s.drop();
    }
  });
});

describe.runIf(available.mysql)('introspect: MariaDB/MySQL specifics', () => {
  it('reports the current database as schema null, and comments', () => {
    expect(table('mysql', 'user')).toMatchObject({ schema: null, comment: 'People who can sign in' });
    expect(column('mysql', 'user', 'first name').comment).toBe('Given name');
    expect(table('mysql', 'active_product').comment).toBeNull();
  });

  it('reads MariaDB JSON (LONGTEXT plus json_valid) as json without its implicit check', () => {
    expect(column('mysql', 'user', 'profile').type).toBe('json');
    expect(table('mysql', 'user').checks).toEqual([]);
  });
});

describe('introspect: SQLite specifics', () => {
  it('resolves REFERENCES without columns, in another case, to the primary key', async () => {
    const s = await scratch('sqlite', 'create table Parent (Code text not null primary key); create table child (p text references PARENT on delete cascade);');
    try {
      const { model: m } = await introspect(s.db, 'sqlite');
      expect(m.tables.find((t) => t.name === 'child')?.foreignKeys).toEqual([
        {
          name: null,
          columns: ['p'],
          referencedSchema: null,
          referencedTable: 'Parent',
          referencedColumns: ['Code'],
          onDelete: 'cascade',
          onUpdate: 'no action',
        },
      ]);
    } finally {
      await s.drop();
    }
  });

  it('tells a rowid alias from other integer keys', async () => {
    const s = await scratch(
      'sqlite',
      'create table a (id integer primary key); create table b (id integer primary key) without rowid; create table c (id int primary key);',
    );
    try {
      const { model: m } = await introspect(s.db, 'sqlite');
      expect(m.tables.map((t) => [t.name, t.columns[0]?.autoIncrement])).toEqual([
        ['a', true],
        ['b', false],
        ['c', false],
      ]);
    } finally {
      await s.drop();
    }
  });

  it('survives a view that no longer compiles', async () => {
    const s = await scratch(
      'sqlite',
      'create table a (id integer primary key); create table gone (x int); create view v as select x from gone; create view w as select id from a; drop table gone;',
    );
    try {
      const { model: m } = await introspect(s.db, 'sqlite');
      expect(m.tables.map((t) => [t.name, t.kind])).toEqual([
        ['a', 'table'],
        ['w', 'view'],
      ]);
    } finally {
      await s.drop();
    }
  });

  it('reads attached databases named in schemas, main as schema null', async () => {
    const s = await scratch('sqlite', 'create table a (id integer primary key);');
    try {
      await sql`attach database ${join(dir, 'aux.sqlite')} as aux`.execute(s.db);
      await sql`create table aux.b (id integer primary key, a_id int references b (id))`.execute(s.db);
      const r = await introspect(s.db, 'sqlite', { schemas: ['main', 'aux'] });
      expect(r.model.tables.map((t) => [t.schema, t.name])).toEqual([
        [null, 'a'],
        ['aux', 'b'],
      ]);
      expect(r.model.tables[1]?.foreignKeys[0]).toMatchObject({ referencedSchema: 'aux', referencedTable: 'b' });
      expect(r.queries).toBe(6);
    } finally {
      await s.drop();
    }
  });

  it('reads expression and partial indexes', async () => {
    const s = await scratch(
      'sqlite',
      `create table a (id integer primary key, email text, deleted int);
      create unique index a_email on a (lower(email) collate nocase desc) where deleted = 0;`,
    );
    try {
      const { model: m } = await introspect(s.db, 'sqlite');
      expect(m.tables[0]?.indexes).toEqual([{ name: 'a_email', columns: ['lower(email)'], unique: true }]);
      expect(m.tables[0]?.uniques).toEqual([]);
    } finally {
      await s.drop();
    }
  });
});

for (const d of DIALECTS) {
  describe.runIf(available[d])(`introspect: query count on ${d}`, () => {
    it('does not grow with the number of tables (5 vs 50)', async () => {
      const counts: number[] = [];
      for (const n of [5, 50]) {
        const s = await scratch(d, manyTablesSql(d, n));
        try {
          const r = await introspect(s.db, d);
          expect(r.model.tables).toHaveLength(n);
          expect(r.model.tables.at(-1)?.foreignKeys).toHaveLength(1);
          expect(r.model.tables.at(-1)?.columns).toHaveLength(10);
          counts.push(r.queries);
        } finally {
          await s.drop();
        }
      }
      expect(counts[0]).toBe(counts[1]);
    });
  });
}

/** The committed dumps (test/fixtures/schema/*dump.sql) must still describe the fixture. */
for (const [d, file] of [
  ['postgres', 'pg_dump.sql'],
  ['mysql', 'mysqldump.sql'],
] as const) {
  describe.runIf(available[d])(`introspect: ${file} is up to date`, () => {
    it(`restores to the same model as ${d}.sql (else run test/fixtures/schema/dump.ts)`, async () => {
      // psql meta-commands (\restrict) are for psql only.
      const script = readFileSync(join(FIXTURE_DIR, file), 'utf8').replace(/^\\.*$/gm, '');
      const s = await scratch(d, script);
      try {
        expect((await introspect(s.db, d)).model).toEqual(model(d));
      } finally {
        await s.drop();
      }
    });
  });
}
