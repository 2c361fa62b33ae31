import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { TokenSigner } from '../../kernel/crypto.js';
import { rowDialect } from '../rows/dialects/index.js';
import { parseListParams } from '../rows/query-params.js';
import { listRows } from '../rows/read.js';
import { col, idCol, tbl } from '../rows/testing.js';
import { postgresSource } from './dialects/postgres.js';
import { withPgClient } from './pg-client.js';
import { DEFAULT_SOURCE_SETTINGS, type SourceDb, type ServerTarget } from './types.js';
import { parseSourceUrl } from './url.js';

const cursors = new TokenSigner('s'.repeat(40), 'test.cursor');
const d = rowDialect('postgres');
const table = tbl('items', [idCol(), col('label', 'string', { nullable: false })]);

describe.runIf(await databaseAvailable('postgres'))('prepared list statements on a PostgreSQL source', () => {
  let temp: TempDatabase;
  let target: ServerTarget;
  const opened: SourceDb[] = [];

  /** A source as the registry opens it, on one connection, so what that connection holds can be read. */
  const open = () => {
    const db = postgresSource.open(target, { ...DEFAULT_SOURCE_SETTINGS, poolSize: 1 }, () => undefined);
    opened.push(db);
    return db;
  };
  const firstPage = async (db: SourceDb) => {
    const params = parseListParams({ sort: '-id', limit: '2' }, { table, readable: new Set(['id', 'label']) });
    return (await listRows(db, d, table, params, { output: table.columns, searchable: [], cursors })).rows;
  };
  const prepared = (db: SourceDb) =>
    withPgClient(db, async (c) => (await c.query<{ name: string }>('select name from pg_prepared_statements')).rows.map((r) => r.name));

  beforeAll(async () => {
    temp = await createTempDatabase('postgres');
    const parsed = parseSourceUrl('postgres', temp.url);
    if (!parsed.ok) throw new Error(parsed.message);
    target = parsed.target as ServerTarget;
    const db = open();
    await sql`create table items (id integer primary key, label varchar(20) not null)`.execute(db);
    await sql`insert into items values (1, 'one'), (2, 'two'), (3, 'three')`.execute(db);
  });
  afterAll(async () => {
    for (const db of opened) await db.destroy();
    await temp?.drop();
  });

  it('prepares a list statement from its second run on, and answers alike', async () => {
    const db = open();
    expect(await firstPage(db)).toEqual([
      { id: 3, label: 'three' },
      { id: 2, label: 'two' },
    ]);
    expect(await prepared(db)).toEqual([]);
    for (let i = 0; i < 3; i++) expect((await firstPage(db)).map((r) => r.id)).toEqual([3, 2]);
    const names = await prepared(db);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^svc_[0-9a-f]{40}$/);
  });

  it('answers when the table changed under a prepared plan, and prepares afresh', async () => {
    const db = open();
    await firstPage(db);
    await firstPage(db);
    expect(await prepared(db)).toHaveLength(1);
    // The kept plan's result type no longer holds: PostgreSQL refuses it (0A000) and the page runs again unnamed.
    await sql`alter table items alter column label type text`.execute(db);
    expect(await firstPage(db)).toEqual([
      { id: 3, label: 'three' },
      { id: 2, label: 'two' },
    ]);
    await sql`alter table items alter column label type varchar(20)`.execute(db);
    await firstPage(db);
    await firstPage(db);
    expect(await prepared(db)).toHaveLength(1);
  });

  it('stops naming statements on a source whose server loses them (a pooler in between)', async () => {
    const db = open();
    await firstPage(db);
    await firstPage(db);
    // What a transaction-mode pooler does to us: the next run lands where the name is unknown (26000).
    await withPgClient(db, (c) => c.query('deallocate all'));
    expect((await firstPage(db)).map((r) => r.id)).toEqual([3, 2]);
    for (let i = 0; i < 3; i++) await firstPage(db);
    expect(await prepared(db)).toEqual([]);
  });
});
