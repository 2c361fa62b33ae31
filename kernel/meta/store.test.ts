import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { recordingLogger } from '../../test/meta/support.js';
import { openMetaStore, type MetaStore } from './store.js';

describe('the embedded SQLite meta store', () => {
  let store: MetaStore | null = null;
  let dir = '';
  afterEach(async () => {
    await store?.close();
    store = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps SQLite's own 2 MB page cache, not better-sqlite3's 16 MB one that file chunks fill", async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-meta-cache-'));
    store = openMetaStore({ url: null, dataDir: dir, log: recordingLogger() });
    const res = await sql<{ cache_size: number }>`pragma cache_size`.execute(store.db);
    expect(Number(res.rows[0]!.cache_size)).toBe(-2000);
  });
});
