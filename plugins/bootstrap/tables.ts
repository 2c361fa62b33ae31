import type { Kysely } from 'kysely';
import type { KernelTables, MetaDb, Migration } from '../../kernel/api.js';

/** Who put the onboarding checklist away (decisions BO4): one row per user, removed with the user. */
export type BootstrapTables = {
  onboarding_dismissals: { user_id: string; dismissed_at: number };
};

export type BootstrapDb = Kysely<KernelTables & BootstrapTables>;
export const bootstrapDb = (db: MetaDb): BootstrapDb => db.withTables<BootstrapTables>();

// `ifNotExists`: MySQL commits DDL implicitly, so a migration there must survive a rerun (K10).
export const bootstrapMigrations: Migration[] = [
  {
    name: '0001_onboarding_dismissals',
    async up(db) {
      await db.schema
        .createTable('onboarding_dismissals')
        .ifNotExists()
        .addColumn('user_id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('dismissed_at', 'bigint', (c) => c.notNull())
        .addForeignKeyConstraint('onboarding_dismissals_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
    },
  },
];
