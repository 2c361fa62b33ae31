import type { Migration } from '../../kernel/api.js';

/**
 * The auth plugin's own tables. Portable across SQLite, PostgreSQL and MySQL: varchar ids,
 * bigint millisecond timestamps, foreign keys as table constraints (MySQL ignores column-level
 * REFERENCES), so a deleted user takes its challenges, second factor and codes with it.
 */
export const authMigrations: Migration[] = [
  {
    name: '0001_two_factor',
    async up(db) {
      // Sign-in challenges between the password and the second factor; only the hash is kept.
      await db.schema
        .createTable('auth_challenges')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .addForeignKeyConstraint('auth_challenges_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await db.schema.createIndex('auth_challenges_user').on('auth_challenges').column('user_id').execute();

      // One row per user with a TOTP secret: the active one, and one awaiting activation.
      await db.schema
        .createTable('auth_totp')
        .addColumn('user_id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('secret_sealed', 'text')
        .addColumn('pending_sealed', 'text')
        .addColumn('last_step', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addForeignKeyConstraint('auth_totp_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();

      await db.schema
        .createTable('auth_recovery_codes')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .addForeignKeyConstraint('auth_recovery_codes_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await db.schema.createIndex('auth_recovery_codes_lookup').on('auth_recovery_codes').columns(['user_id', 'code_hash']).execute();
    },
  },
];
