import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from './sqlite-statements.js';

describe('the embedded store keeps its prepared statements', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function open() {
    dir = mkdtempSync(join(tmpdir(), 'svc-stmt-'));
    const raw = new Database(join(dir, 'meta.sqlite'));
    let prepared = 0;
    const prepare = raw.prepare.bind(raw);
    raw.prepare = ((text: string) => (prepared++, prepare(text))) as typeof raw.prepare;
    return { raw, cached: withStatementCache(raw, 3), prepared: () => prepared };
  }

  it('prepares a text once and runs it again with other values, through kysely', async () => {
    const { cached, prepared } = open();
    const db = new Kysely<{ t: { id: number; v: string } }>({ dialect: new SqliteDialect({ database: cached }) });
    await sql`create table t (id integer primary key, v text)`.execute(db);
    for (let i = 0; i < 5; i++)
      await db
        .insertInto('t')
        .values({ id: i, v: `v${i}` })
        .execute();
    const before = prepared();
    for (let i = 0; i < 5; i++) expect((await db.selectFrom('t').select('v').where('id', '=', i).executeTakeFirst())?.v).toBe(`v${i}`);
    expect(prepared() - before).toBe(1);
    await db.destroy();
  });

  it('gives a fresh statement while the kept one is being iterated, and stays bounded', () => {
    const { raw, cached, prepared } = open();
    raw.exec('create table t (id integer primary key); insert into t values (1), (2), (3)');
    const text = 'select id from t order by id';
    const first = cached.prepare(text);
    const rows = first.iterate([]);
    rows.next();
    const second = cached.prepare(text);
    expect(second).not.toBe(first);
    expect(second.all([])).toHaveLength(3);
    rows.return?.();
    expect(cached.prepare(text)).toBe(first);
    const n = prepared();
    for (const k of [1, 2, 3, 4]) cached.prepare(`select ${k}`);
    expect(prepared() - n).toBe(4);
    cached.prepare(text);
    expect(prepared() - n).toBe(5);
    cached.close();
  });
});
