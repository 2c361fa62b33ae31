import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteWorker } from './sqlite-off-thread.js';

const SLOW_START = new URL('../../test/helpers/slow-start-sqlite-worker.ts', import.meta.url);
/** As test/helpers/slow-start-sqlite-worker.ts (not imported: its top level waits). */
const START_DELAY_MS = 3000;

function database(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sqlite-thread-')), 'db.sqlite');
  const db = new Database(file);
  db.exec("create table t (id integer primary key, v text not null); insert into t (v) values ('a'), ('b')");
  db.close();
  return file;
}

describe('the SQLite statements thread', () => {
  const workers: SqliteWorker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.close();
  });

  it("does not charge a thread's start to the statements sent while it starts", async () => {
    const worker = new SqliteWorker({ entry: SLOW_START });
    workers.push(worker);
    const file = database();
    const sent = Date.now();
    // Each with a deadline far shorter than the thread's start; the second queued behind the first.
    const statement = (sql: string) =>
      worker.run({ file, readOnly: true, openReadOnly: true, sql, parameters: [], maxBytes: 1024 * 1024 }, { deadline: Date.now() + 1000 });
    const [count, names] = await Promise.all([statement('select count(*) as n from t'), statement('select v from t order by id')]);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(START_DELAY_MS);
    expect(count).toMatchObject({ ok: true, rows: [{ n: 2 }] });
    expect(names).toMatchObject({ ok: true, rows: [{ v: 'a' }, { v: 'b' }] });
    expect(worker.restarts).toBe(0);
    // Once started, a statement's deadline is its own again: one past it is not run (skipped by the thread, or timed out here).
    const late = await worker
      .run({ file, readOnly: true, openReadOnly: true, sql: 'select 1', parameters: [], maxBytes: 1024 }, { deadline: Date.now() - 1 })
      .catch((err: Error) => err);
    expect(late instanceof Error || (late.ok === false && late.late === true)).toBe(true);
  }, 30_000);
});
