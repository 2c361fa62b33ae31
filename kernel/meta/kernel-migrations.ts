import type { Migration } from '../plugin/manifest.js';

/** Timestamps are bigint milliseconds (D3); booleans are 0/1 integers on every dialect. */
export const kernelMigrations: Migration[] = [
  {
    name: '0001_state_and_settings',
    async up(db) {
      await db.schema
        .createTable('kernel_state')
        .addColumn('key', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('settings')
        .addColumn('key', 'varchar(100)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: '0002_identity',
    async up(db) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('email', 'varchar(320)', (c) => c.notNull().unique())
        .addColumn('name', 'varchar(120)', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('password_hash', 'text')
        .addColumn('totp_secret', 'text')
        .addColumn('totp_enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_login_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('roles')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(120)', (c) => c.notNull().unique())
        .addColumn('description', 'text')
        .addColumn('builtin', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('role_grants')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('role_id', 'varchar(32)', (c) => c.notNull().references('roles.id').onDelete('cascade'))
        .addColumn('permission', 'varchar(200)', (c) => c.notNull())
        .addColumn('scope', 'text')
        .execute();
      await db.schema.createIndex('role_grants_role').on('role_grants').column('role_id').execute();
      await db.schema
        .createTable('user_roles')
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role_id', 'varchar(32)', (c) => c.notNull().references('roles.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'role_id'])
        .execute();
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('ip', 'varchar(64)')
        .addColumn('user_agent', 'varchar(500)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('absolute_expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(120)', (c) => c.notNull())
        .addColumn('role_id', 'varchar(32)', (c) => c.notNull().references('roles.id'))
        .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
        .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('created_by', 'varchar(32)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .execute();
      const now = Date.now();
      await db
        .insertInto('roles')
        .values([
          { id: 'admin', name: 'admin', description: 'Everything', builtin: 1, created_at: now, updated_at: now },
          { id: 'editor', name: 'editor', description: 'Reads and edits data', builtin: 1, created_at: now, updated_at: now },
          { id: 'viewer', name: 'viewer', description: 'Reads data', builtin: 1, created_at: now, updated_at: now },
        ])
        .execute();
    },
  },
  {
    name: '0003_event_outbox',
    async up(db) {
      // Carries events too large for a NOTIFY payload between PostgreSQL replicas.
      await db.schema
        .createTable('kernel_event_outbox')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
];
