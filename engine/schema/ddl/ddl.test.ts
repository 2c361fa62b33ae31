import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTempDatabase } from '../../../test/fixtures/schema/open.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { AppError } from '../../../kernel/errors.js';
import { introspect } from '../introspect/index.js';
import type { Table } from '../model.js';
import { applyTables, dropTables, planTables, undoTables, type DdlDialectName, type DdlPlan } from './index.js';
import { declare, declared, EVERYTHING, NOTES_V1, NOTES_V2, TAGS } from './testing.js';

const available: Record<DdlDialectName, boolean> = {
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
  sqlite: true,
};

const KEY = 'my-addon';

describe.each(['sqlite', 'postgres', 'mysql'] as const)('%s', (dialect) => {
  let db: Kysely<any>;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    if (!available[dialect]) return;
    ({ db, dispose } = await openTempDatabase(dialect));
  });
  afterEach(async () => {
    if (available[dialect]) await dispose();
  });
  const test = available[dialect] ? it : it.skip;

  const tables = async (): Promise<Table[]> => (await introspect(db, dialect)).model.tables.map((t) => ({ ...t, rowEstimate: null }));
  const table = async (name: string): Promise<Table> => {
    const t = (await tables()).find((x) => x.name === name);
    if (!t) throw new Error(`no table ${name}`);
    return t;
  };
  const install = async (decls = [NOTES_V1, TAGS]) => {
    const plan = planTables(declared(KEY, decls), await tables());
    return applyTables(db, dialect, plan);
  };
  const refusal = async (p: Promise<unknown>, code: string) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(code);
    return err as AppError;
  };

  test('creates every declarable type and introspection maps each back to it', async () => {
    const plan = planTables(declared(KEY, [EVERYTHING]), await tables());
    expect(plan).toMatchObject({ destructive: false, conflicts: [], refusals: [], warnings: [] });
    expect(plan.tables[0]).toMatchObject({ name: 'my_addon__everything', action: 'create' });
    await applyTables(db, dialect, plan);

    const t = await table('my_addon__everything');
    for (const c of EVERYTHING.columns) {
      const got = t.columns.find((x) => x.name === c.name);
      expect(got, c.name).toBeDefined();
      expect({ name: c.name, type: got?.type, nullable: got?.nullable }).toEqual({
        name: c.name,
        type: c.type,
        nullable: c.autoIncrement ? false : c.nullable,
      });
      expect(got?.autoIncrement, c.name).toBe(c.autoIncrement);
    }
    const col = (n: string) => t.columns.find((x) => x.name === n);
    expect(col('c_string')?.maxLength).toBe(80);
    expect({ precision: col('c_decimal')?.precision, scale: col('c_decimal')?.scale }).toEqual({ precision: 10, scale: 3 });
    expect(col('c_enum')?.enumValues).toEqual(['draft', "it's"]);
    expect(t.primaryKey?.columns).toEqual(['id']);
    expect(t.indexes.map((i) => ({ columns: i.columns, unique: i.unique })).sort((a, b) => a.columns.join().localeCompare(b.columns.join()))).toEqual([
      { columns: ['c_integer', 'c_date'], unique: false },
      { columns: ['c_string'], unique: true },
    ]);

    // The defaults work: a row given only text gets them all.
    await db.insertInto('my_addon__everything').values({ c_text: 'x' }).execute();
    const row = await db.selectFrom('my_addon__everything').selectAll().executeTakeFirstOrThrow();
    expect(row.id).toBe(1);
    expect(row.c_string).toBe("it's");
    expect(Number(row.c_integer)).toBe(0);
    expect(Number(row.c_decimal)).toBe(1.5);
    expect(Boolean(row.c_boolean)).toBe(false);
    expect(row.c_enum).toBe('draft');
    expect(row.c_datetime).not.toBeNull();
    expect(row.c_date).not.toBeNull();
    expect(row.c_time).not.toBeNull();
    // The enum refuses other values.
    await expect(db.insertInto('my_addon__everything').values({ c_enum: 'nope', c_string: 'other' }).execute()).rejects.toThrow();
  });

  test('re-planning what is installed has nothing to do', async () => {
    await install([EVERYTHING, NOTES_V2, TAGS]);
    const plan = planTables(declared(KEY, [EVERYTHING, NOTES_V2, TAGS]), await tables(), [EVERYTHING, NOTES_V2, TAGS]);
    expect(plan).toMatchObject({ destructive: false, conflicts: [], refusals: [], warnings: [] });
    expect(plan.tables.map((t) => t.action)).toEqual(['keep', 'keep', 'keep']);
    expect(plan.tables.flatMap((t) => t.columns.map((c) => c.action)).every((a) => a === 'keep')).toBe(true);
    expect(plan.tables.flatMap((t) => t.indexes.map((i) => i.action)).every((a) => a === 'keep')).toBe(true);
    const before = await tables();
    expect((await applyTables(db, dialect, plan)).steps).toEqual([]);
    expect(await tables()).toEqual(before);
  });

  test('an additive upgrade adds the new table, columns and index, and keeps the rows', async () => {
    await install([NOTES_V1]);
    await db.insertInto('my_addon__notes').values({ title: 'first' }).execute();

    const plan = planTables(declared(KEY, [NOTES_V2, TAGS]), await tables(), [NOTES_V1]);
    expect(plan).toMatchObject({ destructive: false, conflicts: [], refusals: [] });
    const notes = plan.tables.find((t) => t.name === 'my_addon__notes');
    expect(notes?.action).toBe('alter');
    expect(notes?.columns.map((c) => [c.name, c.action])).toEqual([
      ['id', 'keep'],
      ['title', 'keep'],
      ['body', 'keep'],
      ['pinned', 'add'],
      ['tag', 'add'],
    ]);
    expect(notes?.indexes.map((i) => [i.columns, i.action])).toEqual([[['pinned', 'title'], 'add']]);
    expect(plan.tables.find((t) => t.name === 'my_addon__tags')?.action).toBe('create');

    const result = await applyTables(db, dialect, plan);
    expect(result.steps.map((s) => s.kind)).toEqual(['addColumn', 'addColumn', 'addIndex', 'createTable']);
    const t = await table('my_addon__notes');
    expect(t.columns.map((c) => [c.name, c.type])).toEqual([
      ['id', dialect === 'sqlite' ? 'integer' : 'bigint'],
      ['title', 'string'],
      ['body', 'text'],
      ['pinned', 'boolean'],
      ['tag', 'enum'],
    ]);
    expect(t.indexes.some((i) => i.columns.join() === 'pinned,title')).toBe(true);
    expect((await table('my_addon__tags')).primaryKey?.columns).toEqual(['note_id', 'tag']);
    const row = await db.selectFrom('my_addon__notes').selectAll().executeTakeFirstOrThrow();
    expect({ title: row.title, pinned: Boolean(row.pinned), tag: row.tag }).toEqual({ title: 'first', pinned: false, tag: null });

    // Then nothing more to do.
    const again = planTables(declared(KEY, [NOTES_V2, TAGS]), await tables(), [NOTES_V2, TAGS]);
    expect(again.tables.map((x) => x.action)).toEqual(['keep', 'keep']);
  });

  test('a NOT NULL column without a default on an existing table is refused before anything runs', async () => {
    await install([NOTES_V1]);
    const v2 = declare({ ...NOTES_V1, columns: [...NOTES_V1.columns, { name: 'rank', type: 'integer', nullable: false }] });
    const plan = planTables(declared(KEY, [v2, TAGS]), await tables(), [NOTES_V1]);
    expect(plan.refusals).toHaveLength(1);
    expect(plan.refusals[0]).toContain('my_addon__notes.rank');
    const before = await tables();
    await refusal(applyTables(db, dialect, plan), 'DDL_REFUSED');
    expect(await tables()).toEqual(before);
  });

  test('dropping a column is destructive: refused unless allowed, then done', async () => {
    await install([NOTES_V1]);
    const v2 = declare({ ...NOTES_V1, columns: NOTES_V1.columns.filter((c) => c.name !== 'body') });
    const plan = planTables(declared(KEY, [v2]), await tables(), [NOTES_V1]);
    expect(plan.destructive).toBe(true);
    expect(plan.tables[0]?.columns.find((c) => c.name === 'body')?.action).toBe('drop');
    await refusal(applyTables(db, dialect, plan), 'DDL_REFUSED');
    expect((await table('my_addon__notes')).columns.map((c) => c.name)).toContain('body');

    await applyTables(db, dialect, plan, { allowDestructive: true });
    expect((await table('my_addon__notes')).columns.map((c) => c.name)).toEqual(['id', 'title']);
  });

  test('dropping an indexed column drops its indexes first', async () => {
    const v1 = declare({
      ...NOTES_V1,
      columns: [...NOTES_V1.columns, { name: 'slug', type: 'string', maxLength: 100, unique: true }],
      indexes: [{ columns: ['title', 'slug'] }],
    });
    await install([v1]);
    const v2 = declare({ ...NOTES_V1, indexes: [] });
    const plan = planTables(declared(KEY, [v2]), await tables(), [v1], { dialect });
    expect(plan.refusals).toEqual([]);
    expect(plan.tables[0]?.indexes.map((i) => [i.columns, i.action])).toEqual([
      [['slug'], 'drop'],
      [['title', 'slug'], 'drop'],
    ]);
    const result = await applyTables(db, dialect, plan, { allowDestructive: true });
    expect(result.steps.map((s) => s.kind)).toEqual(['dropIndex', 'dropIndex', 'dropColumn']);
    expect(result.undo).toEqual([]);
    const t = await table('my_addon__notes');
    expect(t.columns.map((c) => c.name)).toEqual(['id', 'title', 'body']);
    expect(t.indexes).toEqual([]);
  });

  test('a column defaulting to now() is added to an existing table, except on SQLite', async () => {
    await install([NOTES_V1]);
    await db.insertInto('my_addon__notes').values({ title: 'old' }).execute();
    const v2 = declare({ ...NOTES_V1, columns: [...NOTES_V1.columns, { name: 'seen_at', type: 'datetime', nullable: false, default: 'now()' }] });
    const plan = planTables(declared(KEY, [v2]), await tables(), [NOTES_V1], { dialect });
    if (dialect === 'sqlite') {
      expect(plan.refusals).toEqual([expect.stringContaining('my_addon__notes.seen_at')]);
      // applyTables checks it again, whoever planned.
      await refusal(applyTables(db, dialect, planTables(declared(KEY, [v2]), await tables(), [NOTES_V1])), 'DDL_REFUSED');
      return;
    }
    expect(plan.refusals).toEqual([]);
    await applyTables(db, dialect, plan);
    const row = await db.selectFrom('my_addon__notes').select('seen_at').executeTakeFirstOrThrow();
    expect(row.seen_at).not.toBeNull();
  });

  test('retyping a column is destructive', async () => {
    await install([NOTES_V1]);
    const v2 = declare({ ...NOTES_V1, columns: NOTES_V1.columns.map((c) => (c.name === 'title' ? { ...c, maxLength: 500 } : c)) });
    const plan = planTables(declared(KEY, [v2]), await tables(), [NOTES_V1]);
    expect(plan.destructive).toBe(true);
    expect(plan.tables[0]?.columns.find((c) => c.name === 'title')?.action).toBe('retype');
    await refusal(applyTables(db, dialect, plan), 'DDL_REFUSED');
    if (dialect === 'sqlite') {
      // SQLite cannot change a column's type in place: refused even when allowed.
      await refusal(applyTables(db, dialect, plan, { allowDestructive: true }), 'DDL_REFUSED');
      return;
    }
    await applyTables(db, dialect, plan, { allowDestructive: true });
    expect((await table('my_addon__notes')).columns.find((c) => c.name === 'title')?.maxLength).toBe(500);
  });

  if (dialect !== 'sqlite') {
    test('a retype converts the values and replaces an enum’s allowed values', async () => {
      const v1 = declare({
        ...NOTES_V1,
        columns: [...NOTES_V1.columns, { name: 'state', type: 'enum', values: ['a', 'b'] }, { name: 'rank', type: 'string' }],
      });
      await install([v1]);
      await db.insertInto('my_addon__notes').values({ title: 't', state: 'b', rank: '12' }).execute();
      const v2 = declare({
        ...v1,
        columns: v1.columns.map((c) => (c.name === 'state' ? { ...c, values: ['a', 'b', 'c'] } : c.name === 'rank' ? { name: 'rank', type: 'integer' } : c)),
      });
      const plan = planTables(declared(KEY, [v2]), await tables(), [v1], { dialect });
      expect(plan.tables[0]?.columns.filter((c) => c.action === 'retype').map((c) => c.name)).toEqual(['state', 'rank']);
      await applyTables(db, dialect, plan, { allowDestructive: true });
      const t = await table('my_addon__notes');
      expect(t.columns.find((c) => c.name === 'state')).toMatchObject({ type: 'enum', enumValues: ['a', 'b', 'c'] });
      expect(t.columns.find((c) => c.name === 'rank')?.type).toBe('integer');
      await db.insertInto('my_addon__notes').values({ title: 'u', state: 'c' }).execute();
      await expect(db.insertInto('my_addon__notes').values({ title: 'v', state: 'd' }).execute()).rejects.toThrow();
      const rows = await db.selectFrom('my_addon__notes').select(['state', 'rank']).orderBy('id').execute();
      expect(rows.map((r) => [r.state, r.rank === null ? null : Number(r.rank)])).toEqual([
        ['b', 12],
        ['c', null],
      ]);
      // And the next plan keeps it.
      expect(planTables(declared(KEY, [v2]), await tables(), [v2], { dialect }).tables[0]?.action).toBe('keep');
    });
  }

  test('a table that exists and is not the add-on’s is a conflict', async () => {
    await db.schema.createTable('my_addon__tags').addColumn('x', 'integer').execute();
    const plan = planTables(declared(KEY, [NOTES_V1, TAGS]), await tables());
    expect(plan.conflicts).toEqual([{ table: 'my_addon__tags', reason: 'exists' }]);
    const before = await tables();
    await refusal(applyTables(db, dialect, plan), 'DDL_REFUSED');
    expect(await tables()).toEqual(before);
  });

  describe.each([
    ['in a transaction where the dialect allows', true],
    ['by compensation alone', false],
  ] as const)('a failure half-way leaves the connection as it was (%s)', (_label, transaction) => {
    const failAt = async (plan: DdlPlan, failAfter: number) => {
      const before = await tables();
      const err = await refusal(applyTables(db, dialect, plan, { failAfter, transaction }), 'DDL_FAILED');
      expect(await tables()).toEqual(before);
      return err;
    };

    test('install', async () => {
      await db.schema
        .createTable('unrelated')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .execute();
      const plan = planTables(declared(KEY, [EVERYTHING, NOTES_V1, TAGS]), await tables());
      // create ×3, then the 2 indexes of EVERYTHING: fail after each prefix.
      for (const n of [1, 2, 3, 4]) await failAt(plan, n);
      expect((await applyTables(db, dialect, plan, { transaction })).steps).toHaveLength(5);
    });

    test('upgrade', async () => {
      await install([NOTES_V1]);
      await db.insertInto('my_addon__notes').values({ title: 'kept' }).execute();
      const plan = planTables(declared(KEY, [NOTES_V2, TAGS]), await tables(), [NOTES_V1]);
      // addColumn, addColumn, addIndex, createTable
      for (const n of [1, 2, 3]) {
        const err = await failAt(plan, n);
        expect(err.params?.step).toMatchObject({ table: expect.any(String) });
      }
      expect(await db.selectFrom('my_addon__notes').select('title').execute()).toEqual([{ title: 'kept' }]);
    });
  });

  test('onStep sees every step and fails the apply when it throws', async () => {
    const before = await tables();
    const plan = planTables(declared(KEY, [NOTES_V2, TAGS]), before);
    const seen: string[] = [];
    const err = await refusal(
      applyTables(db, dialect, plan, {
        onStep: (step, i) => {
          seen.push(`${i}:${step.kind}:${step.table}`);
          if (i === 2) throw new Error('stop here');
        },
      }),
      'DDL_FAILED',
    );
    expect(seen).toEqual(['0:createTable:my_addon__notes', '1:addIndex:my_addon__notes', '2:createTable:my_addon__tags']);
    expect(err.params?.step).toEqual({ kind: 'createTable', table: 'my_addon__tags' });
    expect(await tables()).toEqual(before);
  });

  if (dialect !== 'mysql') {
    test('inside the caller’s transaction, the caller’s rollback undoes it', async () => {
      const before = await tables();
      const plan = planTables(declared(KEY, [NOTES_V2, TAGS]), before);
      const err = await refusal(
        db.transaction().execute((trx) => applyTables(trx, dialect, plan, { failAfter: 2 })),
        'DDL_FAILED',
      );
      expect(err.params?.undone).toBe('caller-transaction');
      expect(await tables()).toEqual(before);
    });
  }

  test('a failure after a destructive step says what could not be undone', async () => {
    const v1 = declare({ ...NOTES_V1, columns: [...NOTES_V1.columns, { name: 'extra', type: 'integer' }] });
    await install([v1]);
    const v2 = declare({ ...NOTES_V1, columns: [...NOTES_V1.columns.filter((c) => c.name !== 'body'), { name: 'added', type: 'integer' }] });
    const plan = planTables(declared(KEY, [v2]), await tables(), [v1]);
    const before = await tables();
    // addColumn(added), dropColumn(body), dropColumn(extra): fail before the last.
    const err = await refusal(applyTables(db, dialect, plan, { allowDestructive: true, failAfter: 2, transaction: false }), 'DDL_FAILED');
    expect(err.params).toMatchObject({ undone: 'partly', irreversible: [{ kind: 'dropColumn', table: 'my_addon__notes', column: 'body' }] });
    expect((await table('my_addon__notes')).columns.map((c) => c.name)).toEqual(['id', 'title', 'extra']);
    if (dialect !== 'mysql') {
      // In a transaction even a destructive step is rolled back.
      const plan2 = planTables(declared(KEY, [v2]), await tables(), [v1]);
      const before2 = await tables();
      await refusal(applyTables(db, dialect, plan2, { allowDestructive: true, failAfter: 1 }), 'DDL_FAILED');
      expect(await tables()).toEqual(before2);
    }
    expect(before).not.toEqual(await tables());
  });

  test('a step that the database refuses is undone the same way', async () => {
    const before = await tables();
    // The second table's index names a column the table does not have: the database refuses it.
    const plan = planTables(declared(KEY, [NOTES_V1, TAGS]), before);
    const broken: DdlPlan = {
      ...plan,
      tables: plan.tables.map((t) =>
        t.name === 'my_addon__tags' ? { ...t, indexes: [{ name: 'broken_ix', columns: ['nope'], unique: false, action: 'add' as const }] } : t,
      ),
    };
    await refusal(applyTables(db, dialect, broken), 'DDL_FAILED');
    expect(await tables()).toEqual(before);
  });

  test('undoTables reverses a successful apply (the meta store failed after it)', async () => {
    await install([NOTES_V1]);
    const before = await tables();
    const plan = planTables(declared(KEY, [NOTES_V2, TAGS]), before, [NOTES_V1]);
    const { undo } = await applyTables(db, dialect, plan);
    expect(undo.map((u) => u.kind)).toEqual(['dropColumn', 'dropColumn', 'dropIndex', 'dropTable']);
    await undoTables(db, dialect, undo);
    expect(await tables()).toEqual(before);
  });

  test('dropTables removes the add-on’s tables and nothing else', async () => {
    await db.schema
      .createTable('unrelated')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .execute();
    await install([NOTES_V2, TAGS]);
    await dropTables(db, dialect, ['my_addon__notes', 'my_addon__tags', 'my_addon__never_created']);
    expect((await tables()).map((t) => t.name)).toEqual(['unrelated']);
  });

  test('identifiers are quoted and literals escaped', async () => {
    const odd = declare({
      name: 'select',
      primaryKey: ['from'],
      columns: [
        { name: 'from', type: 'string', nullable: false },
        { name: 'where', type: 'string', default: "'); drop table x; --" },
        { name: 'group', type: 'enum', values: ["a'b", 'c\\d'] },
      ],
    });
    await install([odd]);
    await db.insertInto('my_addon__select').values({ from: 'k', group: "a'b" }).execute();
    await db.insertInto('my_addon__select').values({ from: 'l', group: 'c\\d' }).execute();
    const rows = await db.selectFrom('my_addon__select').selectAll().orderBy('from').execute();
    expect(rows.map((r) => [r.from, r.where, r.group])).toEqual([
      ['k', "'); drop table x; --", "a'b"],
      ['l', "'); drop table x; --", 'c\\d'],
    ]);
    expect((await table('my_addon__select')).columns.find((c) => c.name === 'group')?.enumValues).toEqual(["a'b", 'c\\d']);
  });

  test('the server is not asked twice the same DDL (sanity: empty plan touches nothing)', async () => {
    const res = await applyTables(db, dialect, planTables([], await tables()));
    expect(res).toEqual({ steps: [], undo: [] });
    expect(await sql`select 1 as one`.execute(db)).toBeTruthy();
  });
});
