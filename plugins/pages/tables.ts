import type { Kysely } from 'kysely';
import type { KernelTables, MetaDb, Migration } from '../../kernel/api.js';

export type PagesTables = {
  pages: {
    id: string;
    slug: string;
    title: string;
    kind: string;
    connection_id: string | null;
    table_name: string | null;
    config: string;
    position: number;
    generated_key: string | null;
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
];
