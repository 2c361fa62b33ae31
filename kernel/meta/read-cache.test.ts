import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { MetaReadCache } from './read-cache.js';
import { MetaWrites, writesWatched } from './write-watch.js';

interface Tables {
  things: { id: string; name: string };
  other: { id: string };
}

describe('MetaReadCache', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function open() {
    dir = mkdtempSync(join(tmpdir(), 'svc-read-cache-'));
    const writes = new MetaWrites();
    const db = new Kysely<Tables>({ dialect: writesWatched(new SqliteDialect({ database: new Database(join(dir, 'm.sqlite')) }), writes) });
    await sql`create table things (id text primary key, name text)`.execute(db);
    await sql`create table other (id text primary key)`.execute(db);
    await db.insertInto('things').values({ id: 'a', name: 'first' }).execute();
    let clock = 0;
    let reads = 0;
    const cache = new MetaReadCache<string | null>(writes, ['things'], { now: () => clock, ttlMs: 5000 });
    const read = (id: string) =>
      cache.get(id, async () => (reads++, (await db.selectFrom('things').select('name').where('id', '=', id).executeTakeFirst())?.name ?? null));
    return { db, cache, read, reads: () => reads, tick: (ms: number) => (clock += ms) };
  }

  it('reads once, then answers from memory until the table is written or the entry is old', async () => {
    const { db, read, reads, tick } = await open();
    expect(await read('a')).toBe('first');
    expect(await read('a')).toBe('first');
    expect(reads()).toBe(1);
    await db.insertInto('other').values({ id: 'x' }).execute();
    expect(await read('a')).toBe('first');
    expect(reads()).toBe(1);
    await db.updateTable('things').set({ name: 'renamed' }).where('id', '=', 'a').execute();
    expect(await read('a')).toBe('renamed');
    expect(reads()).toBe(2);
    // Another replica's write, unseen here: read again once the entry is 5 s old.
    const replica = new Database(join(dir, 'm.sqlite'));
    replica.prepare(`update things set name = 'elsewhere'`).run();
    replica.close();
    tick(4999);
    expect(await read('a')).toBe('renamed');
    tick(1);
    expect(await read('a')).toBe('elsewhere');
    await db.destroy();
  });

  it('does not keep a read that a write overtook', async () => {
    const { db, read, reads } = await open();
    const slow = read('a');
    await db.deleteFrom('things').where('id', '=', 'a').execute();
    await slow;
    expect(await read('a')).toBeNull();
    expect(reads()).toBe(2);
    await db.destroy();
  });

  it('peeks at what a read would answer without reading, and at nothing a read would have to fetch', async () => {
    const { db, cache, read, reads, tick } = await open();
    expect(cache.peek('a')).toBeUndefined();
    expect(await read('a')).toBe('first');
    expect(cache.peek('a')).toBe('first');
    // A kept "no such row" is an answer too.
    expect(await read('missing')).toBeNull();
    expect(cache.peek('missing')).toBeNull();
    await db.updateTable('things').set({ name: 'renamed' }).where('id', '=', 'a').execute();
    expect(cache.peek('a')).toBeUndefined();
    expect(await read('a')).toBe('renamed');
    tick(5000);
    expect(cache.peek('a')).toBeUndefined();
    expect(reads()).toBe(3);
    await db.destroy();
  });
});
