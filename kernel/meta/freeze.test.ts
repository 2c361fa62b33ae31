import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingLogger } from '../../test/meta/support.js';
import { AppError } from '../errors.js';
import { openMetaStore, openStore, type MetaStore, type OpenedStore } from './store.js';

/** Two embedded stores of one process: the current one, and a relocation's target (the next generation). */
async function twoStores(): Promise<{ store: MetaStore; target: OpenedStore; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-freeze-'));
  const store = openMetaStore({ url: null, dataDir: dir, log: recordingLogger() });
  const target = openStore({
    url: null,
    dataDir: dir,
    file: join(dir, 'target.sqlite'),
    log: recordingLogger(),
    writes: store.writes,
    freeze: store.freeze,
    generation: 1,
  });
  for (const db of [store.db, target.db]) await sql`create table kv (k varchar(10) primary key, v integer not null)`.execute(db);
  return { store, target, dir };
}

const rows = async (db: MetaStore['db']) => (await sql<{ k: string }>`select k from kv order by k`.execute(db)).rows.map((r) => r.k);
const kv = (db: MetaStore['db']) => db as unknown as import('kysely').Kysely<{ kv: { k: string; v: number } }>;

describe('the meta store write freeze (decisions MR1, MR2)', () => {
  let opened: { store: MetaStore; target: OpenedStore; dir: string } | null = null;
  afterEach(async () => {
    if (!opened) return;
    opened.store.freeze.lift(false);
    await opened.store.close();
    await opened.target.db.destroy().catch(() => undefined);
    rmSync(opened.dir, { recursive: true, force: true });
    opened = null;
  });

  it('holds writes, not reads, until it is lifted; the target of a relocation is not held', async () => {
    opened = await twoStores();
    const { store, target } = opened;
    store.freeze.close();
    let written = false;
    const write = kv(store.db)
      .insertInto('kv')
      .values({ k: 'a', v: 1 })
      .execute()
      .then(() => (written = true));
    // Reads go on, and the relocation writes its target, while the write waits.
    expect(await rows(store.db)).toEqual([]);
    await kv(target.db).insertInto('kv').values({ k: 't', v: 1 }).execute();
    expect(written).toBe(false);
    store.freeze.lift(false);
    await write;
    expect(await rows(store.db)).toEqual(['a']);
  });

  it('answers 503 META_UNAVAILABLE with Retry-After to a write that waited too long', async () => {
    opened = await twoStores();
    opened.store.freeze.close();
    const err = await opened.store.freeze.pass(20).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'META_UNAVAILABLE', status: 503, headers: { 'retry-after': '2' } });
  });

  it('runs a write that waited through the swap on the new store, and refuses a transaction begun on the old one', async () => {
    opened = await twoStores();
    const { store, target } = opened;
    const oldDb = store.current().db;
    store.freeze.close();
    const waited = kv(store.db).insertInto('kv').values({ k: 'w', v: 1 }).execute();
    store.swap(target);
    store.freeze.lift(true);
    await waited;
    expect(await rows(store.db)).toEqual(['w']);
    // Not in the old file (a statement reaching the old store now runs on the new one, so it is read directly).
    const file = new Database(join(opened.dir, 'meta.sqlite'), { readonly: true });
    expect(file.prepare('select k from kv').all()).toEqual([]);
    file.close();
    expect(await rows(oldDb)).toEqual(['w']);
    // Built from the proxy after the swap: the new store.
    await kv(store.db).insertInto('kv').values({ k: 'x', v: 2 }).execute();
    expect(await rows(target.db)).toEqual(['w', 'x']);
    // A transaction on the store the process has left.
    const refused = await oldDb
      .transaction()
      .execute(async () => undefined)
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'META_UNAVAILABLE', headers: { 'retry-after': '1' } });
  });
});
