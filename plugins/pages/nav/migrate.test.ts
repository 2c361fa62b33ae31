import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { kernelMigrations } from '../../../kernel/meta/kernel-migrations.js';
import { runMigrations, type PluginMigrations } from '../../../kernel/meta/migrate.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { createStoreTarget, recordedMigrations, tableExists, type MetaDialect, type StoreTarget } from '../../../test/meta/support.js';
import { addonMigrations } from '../../add-ons/tables.js';
import { pagesMigrations } from '../tables.js';

const available: Record<MetaDialect, boolean> = {
  sqlite: true,
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** The sets in load order: add-ons requires pages, so pages' migrations run first. */
const sets = (pages = pagesMigrations, addOns = addonMigrations): PluginMigrations[] => [
  { plugin: 'kernel', migrations: kernelMigrations },
  { plugin: 'pages', migrations: pages },
  { plugin: 'add-ons', migrations: addOns },
];
/** The store before the navigation: pages without 0003_nav, add-ons still keeping addon_placements. */
const before = () =>
  sets(
    pagesMigrations.filter((m) => m.name !== '0003_nav'),
    addonMigrations.filter((m) => m.name !== '0007_addon_placements_moved'),
  );

const navRows = async (db: AnyDb) => ({
  sections: await db.selectFrom('nav_sections').select(['id', 'title', 'position']).orderBy('position').execute(),
  entries: (await db.selectFrom('nav_entries').select(['entry_key', 'section_id', 'position', 'page_id', 'app_key', 'surface']).execute()).sort(
    (a: { entry_key: string }, b: { entry_key: string }) => (a.entry_key < b.entry_key ? -1 : 1),
  ),
});

describe.each(['sqlite', 'postgres', 'mysql'] as const)('navigation migration on %s', (dialect) => {
  describe.runIf(available[dialect])(`${dialect} store`, () => {
    let targets: StoreTarget[] = [];
    const target = async () => {
      const t = await createStoreTarget(dialect);
      targets.push(t);
      return t;
    };
    afterEach(async () => {
      await Promise.all(targets.map((t) => t.dispose()));
      targets = [];
    });

    it('moves addon_placements into sections and entries on an upgraded store, then drops it; a rerun changes nothing', async () => {
      const store = (await target()).open();
      const db = store.db as AnyDb;
      await runMigrations(store, before());
      expect(await tableExists(store, 'addon_placements')).toBe(true);
      expect(await tableExists(store, 'nav_entries')).toBe(false);
      // The old shape (AO14): a section id of `[a-z][a-z0-9-]{0,39}` and an order.
      await db
        .insertInto('addon_placements')
        .values([
          { addon_key: 'panel', surface: 'page', nav_section: 'apps', nav_order: 2, updated_at: 1 },
          { addon_key: 'shop', surface: 'board', nav_section: 'apps', nav_order: 1, updated_at: 1 },
          { addon_key: 'panel', surface: 'other', nav_section: 'my--tools-', nav_order: 0, updated_at: 1 },
        ])
        .execute();

      // MySQL commits DDL implicitly (K10): a run cut short after its inserts is run again whole.
      const nav = pagesMigrations.find((m) => m.name === '0003_nav')!;
      await nav.up(db);
      await nav.up(db);

      const ran = await runMigrations(store, sets());
      expect(ran.applied.map((a) => `${a.plugin}/${a.name}`)).toEqual(['pages/0003_nav', 'add-ons/0007_addon_placements_moved']);
      expect(await tableExists(store, 'addon_placements')).toBe(false);
      const expected = {
        sections: [
          { id: 'apps', title: 'Apps', position: 0 },
          { id: 'my-tools', title: 'My tools', position: 1 },
        ],
        entries: [
          { entry_key: 'app:panel/other', section_id: 'my-tools', position: 0, page_id: null, app_key: 'panel', surface: 'other' },
          { entry_key: 'app:panel/page', section_id: 'apps', position: 2, page_id: null, app_key: 'panel', surface: 'page' },
          { entry_key: 'app:shop/board', section_id: 'apps', position: 1, page_id: null, app_key: 'shop', surface: 'board' },
        ],
      };
      expect(await navRows(db)).toEqual(expected);

      // The table gone, a rerun of the pages migration finds nothing to move.
      await nav.up(db);
      expect(await navRows(db)).toEqual(expected);
      expect((await runMigrations(store, sets())).applied).toEqual([]);
    });

    it('a fresh store ends with empty navigation tables and no addon_placements', async () => {
      const store = (await target()).open();
      await runMigrations(store, sets());
      expect(await recordedMigrations(store)).toEqual(
        expect.arrayContaining(['pages/0003_nav', 'add-ons/0002_addon_placements', 'add-ons/0007_addon_placements_moved']),
      );
      expect(await tableExists(store, 'addon_placements')).toBe(false);
      expect(await navRows(store.db as AnyDb)).toEqual({ sections: [], entries: [] });
    });
  });
});
