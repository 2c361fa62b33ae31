import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from './helpers/instance.js';

type Key = readonly unknown[];
type Live = Readonly<Record<string, readonly Key[] | ((data: unknown) => readonly Key[])>>;

/**
 * The dashboard's modules import without file extensions (its own tsconfig resolves them as a
 * bundler does), so the server's type check must not follow them: they are loaded by URL, and
 * what the test uses of them is typed here.
 */
const dashboard = (path: string) => import(new URL(`../dashboard/src/${path}`, import.meta.url).href);
const { AREAS, LIVE_KINDS, staleKeys } = (await dashboard('areas/index.ts')) as {
  AREAS: ReadonlyArray<{ live?: Live }>;
  LIVE_KINDS: readonly string[];
  staleKeys(kind: string, data: unknown, areas?: ReadonlyArray<{ nav: readonly unknown[]; routes: readonly unknown[]; live?: Live }>): Key[];
};
const { publicApiKeys } = (await dashboard('areas/public-api/api.ts')) as {
  publicApiKeys: { switch: Key; scopes: Key; keys: Key; tableModel(connectionId: string): Key };
};
const { connectionKeys } = (await dashboard('areas/connections/api.ts')) as {
  connectionKeys: { list(): Key; one(id: string): Key; schema(id: string): Key; snapshots(id: string): Key };
};
const { transferKeys } = (await dashboard('areas/transfer/api.ts')) as {
  transferKeys: { import(id: string): Key; export(id: string): Key; jobList(state: string, kind: string): Key; job(id: string): Key };
};

/**
 * The rule (issue 27, point 5): every realtime event kind the server declares (the kernel's own
 * and every plugin manifest's `events`, as a running instance's bus holds them) is refreshed by
 * at least one dashboard area's `live` declaration, which the shell's live channel reads; and
 * every kind an area declares is one the server declares (a kind spelt wrong, or one renamed
 * since, would refresh nothing and say nothing). The only kinds left out are those named here,
 * which are not an area's cached data, each with the reason.
 */
const NOT_AN_AREA: Record<string, string> = {
  // The shell's own: LiveSync refreshes the bell and announces the notification.
  'notification.created': 'the shell',
};

/** Whether invalidating `prefix` reaches `key` (TanStack Query matches a key's start). */
const covers = (prefix: Key, key: Key) => prefix.length <= key.length && prefix.every((part, i) => JSON.stringify(part) === JSON.stringify(key[i]));

describe("the dashboard's live refresh comes from the areas' declarations", () => {
  let inst: TestInstance;
  let declared: string[];
  beforeAll(async () => {
    inst = await startInstance();
    declared = [...inst.app.kernel.events.declared().keys()].sort();
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('refreshes every event kind the server declares, in some area', () => {
    const unrefreshed = declared.filter((kind) => !LIVE_KINDS.includes(kind) && !(kind in NOT_AN_AREA));
    expect(unrefreshed).toEqual([]);
    // An exception for a kind some area now declares, or one the server dropped, is stale.
    expect(Object.keys(NOT_AN_AREA).filter((kind) => LIVE_KINDS.includes(kind) || !declared.includes(kind))).toEqual([]);
  });

  it('names only kinds the server declares', () => {
    const unknown = AREAS.flatMap((area) => Object.keys(area.live ?? {})).filter((kind) => !declared.includes(kind));
    expect(unknown).toEqual([]);
  });

  it("refreshes the public-API screens' own queries on public.changed (not a key no query uses)", () => {
    const keys = staleKeys('public.changed', { what: 'keys', id: 'k1' });
    for (const screen of [publicApiKeys.switch, publicApiKeys.scopes, publicApiKeys.keys]) {
      expect(keys.some((key) => covers(key, screen))).toBe(true);
    }
    expect(staleKeys('public.key-revoked', { id: 'k1' }).some((key) => covers(key, publicApiKeys.keys))).toBe(true);
  });

  it("refreshes the transfer screens' runs and jobs on a job's events", () => {
    for (const kind of ['job.progress', 'job.finished']) {
      const keys = staleKeys(kind, { job: { id: 'j1' } });
      for (const screen of [transferKeys.import('i1'), transferKeys.export('e1'), transferKeys.jobList('', ''), transferKeys.job('j1')]) {
        expect(keys.some((key) => covers(key, screen))).toBe(true);
      }
    }
  });

  it("reads a connection's keys from the event's data, and leaves out keys another one covers", () => {
    const keys = staleKeys('schema.changed', { connectionId: 'c1', snapshotId: 's2', previousSnapshotId: 's1' });
    expect(keys.some((key) => covers(key, publicApiKeys.tableModel('c1')))).toBe(true);
    expect(keys.some((key) => covers(key, publicApiKeys.tableModel('c2')))).toBe(false);
    // The connections area's screens of that connection (its schema, its snapshots), not another's.
    for (const screen of [connectionKeys.one('c1'), connectionKeys.schema('c1'), connectionKeys.snapshots('c1')]) {
      expect(keys.some((key) => covers(key, screen))).toBe(true);
    }
    expect(keys.some((key) => covers(key, connectionKeys.schema('c2')) || covers(key, connectionKeys.list()))).toBe(false);
    // Two areas declaring the same start, or one a longer key under another's: each query is asked for once.
    const areas = [
      { nav: [], routes: [], live: { 'x.changed': [['a'], ['a', 'b']] } },
      { nav: [], routes: [], live: { 'x.changed': (data: unknown) => [['a'], ['c', data]] } },
    ];
    expect(staleKeys('x.changed', 1, areas)).toEqual([['a'], ['c', 1]]);
  });
});
