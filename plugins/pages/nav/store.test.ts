import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetaDb } from '../../../kernel/api.js';
import { definePlugin } from '../../../kernel/plugin/manifest.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { startInstance, type MetaChoice, type TestInstance } from '../../../test/helpers/instance.js';
import { pagesStoreRef, type PagesStore } from '../store.js';

const pg = await databaseAvailable('postgres');
const mysql = await databaseAvailable('mysql');

function navStoreFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let pages: PagesStore;
  let db: MetaDb;
  const probe = definePlugin({
    name: 'nav-probe',
    version: '1.0.0',
    requires: ['pages'],
    setup: (kernel) => {
      pages = kernel.plugin(pagesStoreRef);
      db = kernel.db;
    },
  });
  beforeAll(async () => {
    inst = await startInstance({ meta, plugins: [probe] });
  });
  afterAll(async () => inst?.close());

  const entries = async () => (await pages.nav.stored()).sections.flatMap((s) => s.entries);

  it("takes a page's entry out in the page's delete transaction, and a connection's pages' entries in the connection's", async () => {
    const bound = await pages.create({ slug: 'bound', title: 'Bound', kind: 'dashboard', connectionId: 'c1' });
    const free = await pages.create({ slug: 'free', title: 'Free', kind: 'dashboard' });
    const kept = await pages.create({ slug: 'kept', title: 'Kept', kind: 'dashboard' });
    await pages.nav.replace({ sections: [{ id: 'main', title: 'Main', entries: [{ pageId: bound.id }, { pageId: free.id }, { pageId: kept.id }] }] });
    expect(await entries()).toEqual([{ pageId: bound.id }, { pageId: free.id }, { pageId: kept.id }]);

    // The navigation is one of the page's dependents: the delete cascade calls it in its transaction.
    expect(pages.dependents).toContain(pages.nav);
    await db.transaction().execute(async (trx) => {
      for (const d of pages.dependents) await d.removePage?.(free.id, trx);
    });
    expect(await entries()).toEqual([{ pageId: bound.id }, { pageId: kept.id }]);

    await db.transaction().execute((trx) => pages.removeConnection('c1', trx));
    expect(await entries()).toEqual([{ pageId: kept.id }]);
    expect(await pages.find(bound.id)).toBeNull();
  });

  it("places an app's surface, moves it, answers its placement and removes it with the app", async () => {
    await pages.nav.place('panel', 'page', { section: 'my-apps', order: 4 });
    await pages.nav.place('shop', 'board', { section: 'main', order: 0 });
    expect(await pages.nav.placements()).toEqual(
      new Map([
        ['panel/page', { section: 'my-apps', order: 4 }],
        ['shop/board', { section: 'main', order: 0 }],
      ]),
    );
    const stored = await pages.nav.stored();
    expect(stored.sections.map((s) => [s.id, s.title])).toEqual([
      ['main', 'Main'],
      ['my-apps', 'My apps'],
    ]);
    await pages.nav.place('panel', 'page', { section: 'main', order: 1 });
    expect(await pages.nav.placements('panel')).toEqual(new Map([['panel/page', { section: 'main', order: 1 }]]));
    await db.transaction().execute((trx) => pages.nav.removeApp('panel', trx));
    expect(await pages.nav.placements('panel')).toEqual(new Map());
    await pages.nav.place('shop', 'board', null);
    expect(await pages.nav.placements()).toEqual(new Map());
  });
}

describe('navigation store on SQLite', () => navStoreFlows('sqlite'));
describe.runIf(pg)('navigation store on PostgreSQL', () => navStoreFlows('postgres'));
describe.runIf(mysql)('navigation store on MariaDB', () => navStoreFlows('mysql'));
