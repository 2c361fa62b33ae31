import type { Kysely } from 'kysely';
import { type KernelTables, largeText, type MetaDb, type Migration, rerunnableColumn } from '../../kernel/api.js';
import { moveAddonPlacements } from './nav/migrate.js';

export type PagesTables = {
  pages: {
    id: string;
    slug: string;
    title: string;
    kind: string;
    connection_id: string | null;
    table_name: string | null;
    config: string;
    icon: string | null;
    /** JSON; null until a dashboard's layout is saved. */
    layout: string | null;
    /** JSON `{roles}`; null is anyone with pages.read. */
    visible_to: string | null;
    created_by: string | null;
    position: number;
    generated_key: string | null;
    /** The shared layout's version, for PATCH /pages/{pageId}/layout's compare-and-set (decisions PG6); 0 before the first. */
    layout_version: number;
    created_at: number;
    updated_at: number;
  };
  /** Shared views of a table page (decisions PG7). */
  page_views: {
    id: string;
    page_id: string;
    name: string;
    /** JSON: the view's query as given, checked against the table when written. */
    query: string;
    /** 1 for the page's default view (at most one a page), else 0. */
    is_default: number;
    created_by: string | null;
    created_at: number;
    updated_at: number;
  };
  /** The navigation's sections (issue 28 §1, decisions PG10), in `position` order. */
  nav_sections: {
    /** kebab, 1–40 */
    id: string;
    title: string;
    position: number;
    updated_at: number;
  };
  /** One entry of the navigation: a page (`page_id`) or an app's dashboard-page (`app_key`, `surface`). */
  nav_entries: {
    /** `page:<pageId>` or `app:<appKey>/<surface>`: an entry is in the navigation once. */
    entry_key: string;
    section_id: string;
    /** Ascending within the section; ties by entry_key. */
    position: number;
    page_id: string | null;
    app_key: string | null;
    surface: string | null;
    updated_at: number;
  };
};

export type PagesDb = Kysely<KernelTables & PagesTables>;
export const pagesDb = (db: MetaDb): PagesDb => db.withTables<PagesTables>();

// The unique keys are table constraints so the table and its indexes are one statement: MySQL
// commits DDL implicitly (K10), and `CREATE INDEX IF NOT EXISTS` does not exist on MySQL 8.
// Several NULL generated_key values are allowed by a unique key on all three dialects.
export const pagesMigrations: Migration[] = [
  {
    name: '0001_pages',
    async up(db) {
      await db.schema
        .createTable('pages')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('slug', 'varchar(200)', (c) => c.notNull())
        .addColumn('title', 'varchar(200)', (c) => c.notNull())
        .addColumn('kind', 'varchar(32)', (c) => c.notNull())
        .addColumn('connection_id', 'varchar(64)')
        .addColumn('table_name', 'varchar(255)')
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('generated_key', 'varchar(400)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('pages_slug_unique', ['slug'])
        .addUniqueConstraint('pages_generated_key_unique', ['generated_key'])
        .execute();
    },
  },
  {
    // The page's fields of the pages issue (decisions PG1); each column alone, so a rerun on
    // MySQL (DDL commits implicitly, K10) carries on past the ones an earlier run added.
    name: '0002_pages_fields',
    async up(db) {
      await rerunnableColumn(db.schema.alterTable('pages').addColumn('icon', 'varchar(64)').execute());
      await rerunnableColumn(db.schema.alterTable('pages').addColumn('layout', largeText(db)).execute());
      await rerunnableColumn(db.schema.alterTable('pages').addColumn('visible_to', 'text').execute());
      await rerunnableColumn(db.schema.alterTable('pages').addColumn('created_by', 'varchar(32)').execute());
    },
  },
  {
    // The one navigation (decisions PG10, PG11): sections and entries, then the add-ons plugin's
    // placements (AO14) moved in. The add-ons plugin requires pages, so on an upgrade this runs
    // before add-ons' own 0007 drops addon_placements; on a fresh store there is nothing to move.
    // Every step meets what an earlier run made (MySQL commits DDL implicitly, K10).
    name: '0003_nav',
    async up(db) {
      await db.schema
        .createTable('nav_sections')
        .ifNotExists()
        .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
        .addColumn('title', 'varchar(120)', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('nav_entries')
        .ifNotExists()
        .addColumn('entry_key', 'varchar(120)', (c) => c.primaryKey())
        .addColumn('section_id', 'varchar(40)', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('page_id', 'varchar(32)')
        .addColumn('app_key', 'varchar(40)')
        .addColumn('surface', 'varchar(64)')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await moveAddonPlacements(db, Date.now());
    },
  },
  {
    // Shared views and the layout's version (decisions PG6, PG7). The view table and its unique key
    // are one statement (K10); the version column alone, rerunnable.
    name: '0004_page_views',
    async up(db) {
      await rerunnableColumn(
        db.schema
          .alterTable('pages')
          .addColumn('layout_version', 'integer', (c) => c.notNull().defaultTo(0))
          .execute(),
      );
      await db.schema
        .createTable('page_views')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('page_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('name', 'varchar(120)', (c) => c.notNull())
        .addColumn('query', 'text', (c) => c.notNull())
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_by', 'varchar(32)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('page_views_page_name_unique', ['page_id', 'name'])
        .execute();
    },
  },
];
