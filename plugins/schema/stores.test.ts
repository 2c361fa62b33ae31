import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../kernel/kernel-services.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type MetaChoice, type TestInstance } from '../../test/helpers/instance.js';
import { OverridesStore } from './overrides-store.js';
import { SnapshotStore } from './snapshots.js';
import { schemaDb } from './tables.js';
import { col, shop } from './testing.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

function storeFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let kernel: Kernel;
  // Several stores on one database stand for several replicas.
  const snapshots = () => new SnapshotStore(schemaDb(kernel.db), Date.now);
  const probe = definePlugin({ name: 'schema-probe', version: '1.0.0', requires: ['schema'], setup: (k) => void (kernel = k) });
  beforeAll(async () => {
    inst = await startInstance({ meta, plugins: [probe] });
  });
  afterAll(async () => inst?.close());

  it('stores one snapshot when several introspections of one structure race', async () => {
    const stores = [snapshots(), snapshots(), snapshots(), snapshots()];
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => stores[i % 4]!.record('race', shop(), { queries: 3, durationMs: 5 })));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.snapshot.id)).size).toBe(1);
    expect((await stores[0]!.list('race', 50)).snapshots).toHaveLength(1);
  });

  it('keeps a timeline: going back to an earlier structure is a new snapshot; row estimates are not structure', async () => {
    const store = snapshots();
    const a = shop();
    const b = shop();
    b.tables[0]!.columns.push(col('phone'));
    const first = await store.record('timeline', a, { queries: 1, durationMs: 1 });
    const second = await store.record('timeline', b, { queries: 1, durationMs: 1 });
    const third = await store.record('timeline', a, { queries: 1, durationMs: 1 });
    expect([first.created, second.created, third.created]).toEqual([true, true, true]);
    expect(third.snapshot.hash).toBe(first.snapshot.hash);
    expect(third.snapshot.previousSnapshotId).toBe(second.snapshot.id);
    const estimated = shop();
    estimated.tables[1]!.rowEstimate = 99_000;
    expect((await store.record('timeline', estimated, { queries: 1, durationMs: 1 })).created).toBe(false);
    const list = await store.list('timeline', 2);
    expect(list.snapshots.map((s) => s.id)).toEqual([third.snapshot.id, second.snapshot.id]);
    expect((await store.list('timeline', 2, list.next!)).snapshots.map((s) => s.id)).toEqual([first.snapshot.id]);
    expect(await snapshots().model('timeline', second.snapshot.id)).toMatchObject({ tables: expect.any(Array) });
    expect(await store.summary('other-connection', first.snapshot.id)).toBeNull();
  });

  it('replaces overrides whole, counting versions, also when two first writes race', async () => {
    const stores = [new OverridesStore(schemaDb(kernel.db), Date.now), new OverridesStore(schemaDb(kernel.db), Date.now)];
    await Promise.all([stores[0]!.put('o1', { tables: [{ table: 'a', label: 'A' }] }), stores[1]!.put('o1', { tables: [{ table: 'b', label: 'B' }] })]);
    const after = await stores[0]!.get('o1');
    expect(after.version).toBe(2);
    expect(after.overrides.tables).toHaveLength(1);
    expect(await stores[0]!.get('never')).toEqual({ overrides: { tables: [] }, version: 0, updatedAt: null });
  });
}

describe('schema stores on SQLite', () => storeFlows('sqlite'));
describe.runIf(pg)('schema stores on PostgreSQL', () => storeFlows('postgres'));
describe.runIf(mysql)('schema stores on MariaDB', () => storeFlows('mysql'));
