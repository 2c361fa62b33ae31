import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  DummyDriver,
  Kysely,
  MysqlAdapter,
  MysqlIntrospector,
  MysqlQueryCompiler,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteDialect,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type Compilable,
} from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { changesPrincipals } from '../identity/principal-cache.js';
import { ANY_TABLE, MetaWrites, writesOf, writesWatched, type MetaWrite } from './write-watch.js';

interface Tables {
  sessions: { id: string; last_seen_at: number; expires_at: number; user_id: string };
}

describe('the meta store tells who listens about its row writes', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function open() {
    dir = mkdtempSync(join(tmpdir(), 'svc-writes-'));
    const writes = new MetaWrites();
    const seen: MetaWrite[] = [];
    writes.on((w) => seen.push(w));
    const db = new Kysely<Tables>({ dialect: writesWatched(new SqliteDialect({ database: new Database(join(dir, 'm.sqlite')) }), writes) });
    await sql`create table sessions (id text primary key, last_seen_at integer, expires_at integer, user_id text)`.execute(db);
    return { db, seen };
  }

  it('names the table, the kind and the columns an update sets; reads are not writes', async () => {
    const { db, seen } = await open();
    await db.insertInto('sessions').values({ id: 'a', last_seen_at: 1, expires_at: 2, user_id: 'u' }).execute();
    await db.updateTable('sessions').set({ last_seen_at: 3, expires_at: 4 }).where('id', '=', 'a').execute();
    await db.selectFrom('sessions').selectAll().execute();
    await db.updateTable('sessions as s').set({ user_id: 'v' }).execute();
    await db.deleteFrom('sessions').where('id', '=', 'a').execute();
    expect(seen.map(({ keysOf: _, ...w }) => w)).toEqual([
      { op: 'insert', table: 'sessions', columns: [] },
      { op: 'update', table: 'sessions', columns: ['last_seen_at', 'expires_at'] },
      { op: 'update', table: 'sessions', columns: ['user_id'] },
      { op: 'delete', table: 'sessions', columns: [] },
    ]);
    expect(seen.map(changesPrincipals)).toEqual([false, false, true, true]);
    await db.destroy();
  });

  it('tells a transaction’s writes again when it commits or rolls back', async () => {
    const { db, seen } = await open();
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('sessions').execute();
      expect(seen).toHaveLength(1);
    });
    expect(seen).toHaveLength(2);
    await expect(
      db.transaction().execute(async (tx) => {
        await tx.deleteFrom('sessions').execute();
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(seen).toHaveLength(4);
    await db.destroy();
  });
});

interface KeyTables {
  sessions: { id: string; last_seen_at: number; expires_at: number; user_id: string };
  user_roles: { user_id: string; role_id: string };
  audit_log: { id: string; at: number };
}

const compilers = {
  postgres: {
    adapter: () => new PostgresAdapter(),
    introspector: (db: Kysely<any>) => new PostgresIntrospector(db),
    compiler: () => new PostgresQueryCompiler(),
  },
  mysql: { adapter: () => new MysqlAdapter(), introspector: (db: Kysely<any>) => new MysqlIntrospector(db), compiler: () => new MysqlQueryCompiler() },
  sqlite: { adapter: () => new SqliteAdapter(), introspector: (db: Kysely<any>) => new SqliteIntrospector(db), compiler: () => new SqliteQueryCompiler() },
};

describe.each(Object.keys(compilers) as Array<keyof typeof compilers>)('the keys a statement compiled for %s writes (MR4)', (dialect) => {
  const c = compilers[dialect];
  const db = new Kysely<KeyTables>({
    dialect: { createAdapter: c.adapter, createDriver: () => new DummyDriver(), createIntrospector: c.introspector, createQueryCompiler: c.compiler },
  });
  const one = (q: Compilable) => {
    const writes = writesOf(q.compile());
    expect(writes).toHaveLength(1);
    return writes[0]!;
  };
  const keys = (q: Compilable, key: string[]) => one(q).keysOf?.(key) ?? null;

  it('an insert names its rows by their key values, one row or many', () => {
    const session = { last_seen_at: 1, expires_at: 2, user_id: 'u' };
    expect(keys(db.insertInto('sessions').values({ id: 'a', ...session }), ['id'])).toEqual([['a']]);
    expect(
      keys(
        db.insertInto('sessions').values([
          { id: 'a', ...session },
          { id: 'b', ...session },
        ]),
        ['id'],
      ),
    ).toEqual([['a'], ['b']]);
    expect(
      keys(
        db.insertInto('user_roles').values([
          { user_id: 'u1', role_id: 'admin' },
          { user_id: 'u2', role_id: 'editor' },
        ]),
        ['user_id', 'role_id'],
      ),
    ).toEqual([
      ['u1', 'admin'],
      ['u2', 'editor'],
    ]);
    // A key column the insert does not give (a default, an expression), or rows from a query: not told.
    expect(keys(db.insertInto('audit_log').values({ at: 1 } as never), ['id'])).toBeNull();
    expect(keys(db.insertInto('audit_log').values({ id: sql<string>`lower('A')`, at: 1 }), ['id'])).toBeNull();
    expect(keys(db.insertInto('audit_log').expression(db.selectFrom('sessions').select(['id', 'last_seen_at as at'])), ['id'])).toBeNull();
  });

  it('an update or delete by key, by a list of keys, or by a composite key with `and` names those keys', () => {
    expect(keys(db.updateTable('sessions').set({ last_seen_at: 5 }).where('id', '=', 'a'), ['id'])).toEqual([['a']]);
    expect(keys(db.updateTable('sessions as s').set({ last_seen_at: 5 }).where('s.id', '=', 'a'), ['id'])).toEqual([['a']]);
    expect(keys(db.deleteFrom('sessions').where('id', 'in', ['a', 'b', 'c']), ['id'])).toEqual([['a'], ['b'], ['c']]);
    // Another term with `and` narrows further: the key still names every row it can reach.
    expect(keys(db.deleteFrom('sessions').where('id', '=', 'a').where('expires_at', '<', 10), ['id'])).toEqual([['a']]);
    expect(keys(db.deleteFrom('user_roles').where('user_id', '=', 'u1').where('role_id', 'in', ['admin', 'editor']), ['user_id', 'role_id'])).toEqual([
      ['u1', 'admin'],
      ['u1', 'editor'],
    ]);
    expect(
      keys(
        db.deleteFrom('user_roles').where((eb) => eb.and([eb('role_id', '=', 'admin'), eb('user_id', '=', 'u1')])),
        ['user_id', 'role_id'],
      ),
    ).toEqual([['u1', 'admin']]);
  });

  it('a range, an `or`, part of a composite key, a key set by an update or a subquery does not tell its rows', () => {
    expect(keys(db.deleteFrom('sessions').where('expires_at', '<', 10), ['id'])).toBeNull();
    expect(keys(db.deleteFrom('audit_log').where('at', '<', 10), ['id'])).toBeNull();
    expect(
      keys(
        db.deleteFrom('sessions').where((eb) => eb.or([eb('id', '=', 'a'), eb('user_id', '=', 'u')])),
        ['id'],
      ),
    ).toBeNull();
    expect(keys(db.deleteFrom('user_roles').where('user_id', '=', 'u1'), ['user_id', 'role_id'])).toBeNull();
    expect(keys(db.updateTable('sessions').set({ id: 'b' }).where('id', '=', 'a'), ['id'])).toBeNull();
    expect(keys(db.deleteFrom('sessions').where('id', 'in', db.selectFrom('sessions').select('id')), ['id'])).toBeNull();
    expect(keys(db.updateTable('sessions').set({ last_seen_at: 1 }), ['id'])).toBeNull();
  });

  it('an upsert tells its rows only when its conflict is on the key', () => {
    const row = { id: 'a', last_seen_at: 1, expires_at: 2, user_id: 'u' };
    if (dialect === 'mysql') {
      expect(keys(db.insertInto('sessions').values(row).onDuplicateKeyUpdate({ last_seen_at: 3 }), ['id'])).toBeNull();
      expect(keys(db.insertInto('sessions').values(row).ignore(), ['id'])).toEqual([['a']]);
      return;
    }
    expect(
      keys(
        db
          .insertInto('sessions')
          .values(row)
          .onConflict((oc) => oc.column('id').doUpdateSet({ last_seen_at: 3 })),
        ['id'],
      ),
    ).toEqual([['a']]);
    expect(
      keys(
        db
          .insertInto('sessions')
          .values(row)
          .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_seen_at: 3 })),
        ['id'],
      ),
    ).toBeNull();
    expect(
      keys(
        db
          .insertInto('sessions')
          .values(row)
          .onConflict((oc) => oc.doNothing()),
        ['id'],
      ),
    ).toEqual([['a']]);
    if (dialect === 'sqlite') expect(keys(db.replaceInto('sessions').values(row), ['id'])).toBeNull();
  });
});

describe('the writes of raw SQL (MR4)', () => {
  it('raw SQL: the table and kind of a plain insert, update or delete, never its rows; any other write is any table', () => {
    const raw = (text: string) =>
      writesOf({ query: { kind: 'RawNode' } as never, sql: text }).map(({ keysOf, ...w }) => ({ ...w, keys: keysOf ? 'told' : 'not told' }));
    expect(raw('delete from kernel_event_outbox where created_at < $1')).toEqual([
      { op: 'delete', table: 'kernel_event_outbox', columns: [], keys: 'not told' },
    ]);
    expect(raw('INSERT INTO "jobs" (id) values (?)')).toEqual([{ op: 'insert', table: 'jobs', columns: [], keys: 'not told' }]);
    expect(raw('update `sessions` set last_seen_at = 1 where id = ?')).toEqual([{ op: 'update', table: 'sessions', columns: [], keys: 'not told' }]);
    expect(raw('insert into kv (k, v) values (?, ?) on conflict (k) do update set v = excluded.v')).toEqual([
      { op: 'insert', table: 'kv', columns: [], keys: 'not told' },
    ]);
    expect(raw('with gone as (delete from jobs returning id) select count(*) from gone')).toEqual([
      { op: 'update', table: ANY_TABLE, columns: [], keys: 'not told' },
    ]);
    expect(raw('merge into jobs using x on true when matched then delete')).toEqual([{ op: 'update', table: ANY_TABLE, columns: [], keys: 'not told' }]);
    for (const read of [
      'select 1',
      'begin immediate',
      'commit',
      'set local statement_timeout = 5',
      'pragma busy_timeout = 5',
      'with x as (select 1) select * from x',
      'create table t (a int)',
    ])
      expect(raw(read)).toEqual([]);
  });
});
