import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { changesPrincipals } from '../identity/principal-cache.js';
import { MetaWrites, writesWatched, type MetaWrite } from './write-watch.js';

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

  it('names the table, the kind and the columns an update sets; reads and raw SQL are not writes', async () => {
    const { db, seen } = await open();
    await db.insertInto('sessions').values({ id: 'a', last_seen_at: 1, expires_at: 2, user_id: 'u' }).execute();
    await db.updateTable('sessions').set({ last_seen_at: 3, expires_at: 4 }).where('id', '=', 'a').execute();
    await db.selectFrom('sessions').selectAll().execute();
    await db.updateTable('sessions as s').set({ user_id: 'v' }).execute();
    await db.deleteFrom('sessions').where('id', '=', 'a').execute();
    expect(seen).toEqual([
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
