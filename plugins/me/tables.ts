import type { Kysely } from 'kysely';
import { type KernelTables, type MetaDb, type Migration, rerunnableColumn } from '../../kernel/api.js';

/** The me plugin's own tables; notifications and their prefs are the kernel's. */
export type MeTables = {
  user_prefs: {
    user_id: string;
    theme: string | null;
    accent: string | null;
    density: string | null;
    locale: string | null;
    dir: string | null;
    // time_zone (migration 0003) is left unused: the zone is kept in the browser (ME8).
    updated_at: number;
  };
  user_layouts: { user_id: string; page_id: string; layout: string; updated_at: number };
};

export type MeDb = Kysely<KernelTables & MeTables>;

export const meDb = (db: MetaDb): MeDb => db.withTables<MeTables>();

// `ifNotExists`: MySQL commits DDL implicitly, so a migration there must survive a rerun (K10).
export const meMigrations: Migration[] = [
  {
    name: '0001_user_prefs',
    async up(db) {
      await db.schema
        .createTable('user_prefs')
        .ifNotExists()
        .addColumn('user_id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('theme', 'varchar(16)')
        .addColumn('accent', 'varchar(16)')
        .addColumn('density', 'varchar(16)')
        .addColumn('locale', 'varchar(35)')
        .addColumn('dir', 'varchar(3)')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addForeignKeyConstraint('user_prefs_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
    },
  },
  {
    name: '0002_user_layouts',
    async up(db) {
      await db.schema
        .createTable('user_layouts')
        .ifNotExists()
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('page_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('layout', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('user_layouts_pk', ['user_id', 'page_id'])
        .addForeignKeyConstraint('user_layouts_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
    },
  },
  // Unused since ME8 was rewritten (the zone is kept in the browser); a landed migration stays as it ran.
  {
    // ME8: the person's time zone. IANA names are at most 64 characters here (the field's limit).
    name: '0003_user_prefs_time_zone',
    async up(db) {
      await rerunnableColumn(db.schema.alterTable('user_prefs').addColumn('time_zone', 'varchar(64)').execute());
    },
  },
];
