import type { Kysely } from 'kysely';
import { type KernelTables, largeText, type MetaDb, type Migration, rerunnableColumn } from '../../kernel/api.js';

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
    // Shared views and the layout's version (decisions PG6, PG7). The view table and its unique key
    // are one statement (K10); the version column alone, rerunnable.
    name: '0003_page_views',
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
