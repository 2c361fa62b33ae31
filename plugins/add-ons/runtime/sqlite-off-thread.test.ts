import { mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../kernel/errors.js';
import { offThreadSqlite, SqliteWorker, withStatementDeadline } from './sqlite-off-thread.js';

/** Review of issue 26, point 4: the one thread of add-ons' SQLite statements, on real files. */

function database(dir: string, name: string): string {
  const file = join(dir, name);
  const db = new Database(file);
  db.exec('create table t (id integer primary key, v text not null)');
  db.close();
  return file;
}

const target = (file: string) => ({ file, readOnly: false, maxBytes: 1024 * 1024 });

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  }
  return 'answered';
}

describe('the add-ons SQLite thread', () => {
  const workers: SqliteWorker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.close();
  });

  it("stops a statement that runs past its deadline by starting a new thread; another file's statement queued behind it runs there", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'addon-sqlite-'));
    const worker = new SqliteWorker();
    workers.push(worker);
    const a = offThreadSqlite(worker, target(database(dir, 'a.db')));
    const b = offThreadSqlite(worker, target(database(dir, 'b.db')));
    // The thread is up and idle before the statement that never ends is sent.
    await sql`insert into t (v) values ('x')`.execute(b);
    const endless = sql`with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) as c from n`;
    const stuck = withStatementDeadline(Date.now() + 2000, () => endless.execute(a));
    const queued = withStatementDeadline(Date.now() + 120_000, () => sql<{ n: number }>`select count(*) as n from t`.execute(b));
    expect(await codeOf(stuck)).toBe('ADDON_TIMEOUT');
    expect((await queued).rows).toEqual([{ n: 1 }]);
    expect(worker.restarts).toBe(1);
    // The file the stuck statement held is usable again.
    await sql`insert into t (v) values ('y')`.execute(a);
    expect((await sql<{ v: string }>`select v from t`.execute(a)).rows).toEqual([{ v: 'y' }]);
  }, 60_000);

  it('writes to the file the path names now, after the operator replaced it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'addon-sqlite-'));
    const file = database(dir, 'shop.db');
    const worker = new SqliteWorker();
    workers.push(worker);
    const db = offThreadSqlite(worker, target(file));
    await sql`insert into t (v) values ('before')`.execute(db);
    // A restore: another database moved over the path (the open handle keeps the old, deleted file).
    renameSync(database(dir, 'restored.db'), file);
    await sql`insert into t (v) values ('after')`.execute(db);
    const direct = new Database(file, { readonly: true });
    try {
      expect(direct.prepare('select v from t').all()).toEqual([{ v: 'after' }]);
    } finally {
      direct.close();
    }
    expect((await sql<{ v: string }>`select v from t`.execute(db)).rows).toEqual([{ v: 'after' }]);
  });
});
