import type { Kysely } from 'kysely';
import { type KernelTables, type MetaDb, type Migration } from '../../kernel/api.js';

/**
 * The i18n plugin's tables (decisions IN4). A shipped locale (a directory under i18n/) needs no
 * row: a row is written when it is changed (PATCH), so an upgrade that ships a new directory
 * shows it at once. A locale added by POST always has its row.
 */
export type I18nTables = {
  i18n_locales: {
    locale: string;
    name: string;
    /** null: `en`'s own row (the source falls back to nothing). */
    fallback: string | null;
    dir: string;
    /** 0/1 (K9). */
    enabled: number;
    /** 0/1: written as the directory's presence when the row was written; the directory decides. */
    shipped: number;
    created_at: number;
    updated_at: number;
  };
  i18n_messages: {
    locale: string;
    namespace: string;
    key: string;
    value: string;
    updated_by: string | null;
    updated_at: number;
  };
};

export type I18nDb = Kysely<KernelTables & I18nTables>;

export const i18nDb = (db: MetaDb): I18nDb => db.withTables<I18nTables>();

// `ifNotExists`: MySQL commits DDL implicitly, so a migration there must survive a rerun (K10).
export const i18nMigrations: Migration[] = [
  {
    name: '0001_i18n_locales',
    async up(db) {
      await db.schema
        .createTable('i18n_locales')
        .ifNotExists()
        .addColumn('locale', 'varchar(35)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(60)', (c) => c.notNull())
        .addColumn('fallback', 'varchar(35)')
        .addColumn('dir', 'varchar(3)', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('shipped', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: '0002_i18n_messages',
    async up(db) {
      await db.schema
        .createTable('i18n_messages')
        .ifNotExists()
        .addColumn('locale', 'varchar(35)', (c) => c.notNull())
        .addColumn('namespace', 'varchar(64)', (c) => c.notNull())
        .addColumn('key', 'varchar(200)', (c) => c.notNull())
        // At most 10,000 characters (the API's limit): within MySQL's TEXT in utf8mb4.
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_by', 'varchar(32)')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('i18n_messages_pk', ['locale', 'namespace', 'key'])
        .execute();
    },
  },
];
