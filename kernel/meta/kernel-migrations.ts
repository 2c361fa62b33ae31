import { MysqlAdapter, PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Migration } from '../plugin/manifest.js';

/**
 * Timestamps are bigint milliseconds (D3); booleans are 0/1 integers on every dialect. Foreign
 * keys are table constraints: MySQL 8 parses a column-level REFERENCES and silently ignores it.
 */
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
        .addColumn('role_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('permission', 'varchar(200)', (c) => c.notNull())
        .addColumn('scope', 'text')
        .addForeignKeyConstraint('role_grants_role_fk', ['role_id'], 'roles', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await db.schema.createIndex('role_grants_role').on('role_grants').column('role_id').execute();
      await db.schema
        .createTable('user_roles')
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('role_id', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'role_id'])
        .addForeignKeyConstraint('user_roles_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .addForeignKeyConstraint('user_roles_role_fk', ['role_id'], 'roles', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await db.schema
        .createTable('sessions')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('ip', 'varchar(64)')
        .addColumn('user_agent', 'varchar(500)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('absolute_expires_at', 'bigint', (c) => c.notNull())
        .addForeignKeyConstraint('sessions_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(120)', (c) => c.notNull())
        .addColumn('role_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('prefix', 'varchar(32)', (c) => c.notNull())
        .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('created_by', 'varchar(32)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .addForeignKeyConstraint('api_keys_role_fk', ['role_id'], 'roles', ['id'])
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
  {
    name: '0004_audit',
    async up(db) {
      await db.schema
        .createTable('audit_log')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('actor_type', 'varchar(16)', (c) => c.notNull())
        .addColumn('actor_id', 'varchar(32)')
        .addColumn('action', 'varchar(100)', (c) => c.notNull())
        .addColumn('target_type', 'varchar(50)')
        .addColumn('target_id', 'varchar(200)')
        .addColumn('diff', 'text')
        .addColumn('ip', 'varchar(64)')
        .addColumn('user_agent', 'varchar(500)')
        .addColumn('request_id', 'varchar(64)')
        .execute();
      await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_id', 'id']).execute();
      await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'id']).execute();
      await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_type', 'target_id', 'id']).execute();
    },
  },
  {
    name: '0005_notifications',
    async up(db) {
      await db.schema
        .createTable('notifications')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('kind', 'varchar(100)', (c) => c.notNull())
        .addColumn('title', 'varchar(300)', (c) => c.notNull())
        .addColumn('body', 'text')
        .addColumn('link', 'varchar(2000)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('read_at', 'bigint')
        .addForeignKeyConstraint('notifications_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await db.schema.createIndex('notifications_user').on('notifications').columns(['user_id', 'id']).execute();
      await db.schema
        .createTable('notification_prefs')
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('kind', 'varchar(100)', (c) => c.notNull())
        .addColumn('in_app', 'integer', (c) => c.notNull())
        .addColumn('email', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('notification_prefs_pk', ['user_id', 'kind'])
        .addForeignKeyConstraint('notification_prefs_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
    },
  },
  {
    name: '0006_password_tokens',
    async up(db) {
      // Single-use set-password tokens (reset and invitation), stored as hashes only.
      await db.schema
        .createTable('password_tokens')
        .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .addForeignKeyConstraint('password_tokens_user_fk', ['user_id'], 'users', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await db.schema.createIndex('password_tokens_user').on('password_tokens').column('user_id').execute();
    },
  },
  {
    name: '0007_jobs',
    async up(db) {
      // D13, decisions J1. payload/result are JSON text capped at 60 000 bytes by the queue
      // (MySQL's TEXT holds 64 KiB). No foreign key on created_by: a job outlives its creator.
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('kind', 'varchar(100)', (c) => c.notNull())
        .addColumn('state', 'varchar(16)', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('progress', 'double precision')
        .addColumn('progress_message', 'varchar(500)')
        .addColumn('result', 'text')
        .addColumn('error_code', 'varchar(100)')
        .addColumn('error_message', 'varchar(1000)')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_by', 'varchar(32)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('finished_at', 'bigint')
        .addColumn('run_after', 'bigint', (c) => c.notNull())
        .addColumn('locked_by', 'varchar(64)')
        .addColumn('lease_until', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      // The claim walks (state, run_after, id) so SKIP LOCKED locks only the row it takes.
      await db.schema.createIndex('jobs_claim').on('jobs').columns(['state', 'run_after', 'id']).execute();
      await db.schema.createIndex('jobs_creator').on('jobs').columns(['created_by', 'id']).execute();
      await db.schema.createIndex('jobs_kind').on('jobs').columns(['kind', 'id']).execute();
    },
  },
  {
    name: '0008_files',
    async up(db) {
      // K45. The index of the file store, whatever the driver, and the `meta` driver's chunks.
      // A rerun on MySQL (DDL commits at once) meets what the first run made.
      await db.schema
        .createTable('file_objects')
        .ifNotExists()
        .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('blob', 'varchar(32)', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .execute();
      await db.schema.createIndex('file_objects_expiry').on('file_objects').column('expires_at').execute().catch(alreadyThere);
      await db.schema.createIndex('file_objects_blob').on('file_objects').column('blob').execute().catch(alreadyThere);
      await db.schema
        .createTable('file_chunks')
        .ifNotExists()
        .addColumn('blob', 'varchar(32)', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('data', binary(db), (c) => c.notNull())
        .addPrimaryKeyConstraint('file_chunks_pk', ['blob', 'seq'])
        .execute();
    },
  },
  {
    name: '0009_schedule_runs',
    async up(db) {
      // K-decision (the scheduler in the kernel): one row per (owner kind, owner id, due time)
      // claimed, so replicas sharing the meta store run each due time once; the job it queued.
      await db.schema
        .createTable('schedule_runs')
        .ifNotExists()
        .addColumn('owner_kind', 'varchar(40)', (c) => c.notNull())
        .addColumn('owner_id', 'varchar(200)', (c) => c.notNull())
        .addColumn('due_at', 'bigint', (c) => c.notNull())
        .addColumn('job_id', 'varchar(32)')
        .addColumn('claimed_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('schedule_runs_pk', ['owner_kind', 'owner_id', 'due_at'])
        .execute();
      await db.schema.createIndex('schedule_runs_due').on('schedule_runs').column('due_at').execute().catch(alreadyThere);
    },
  },
  {
    name: '0010_job_subject',
    async up(db) {
      // J3: what a job works on, as its kind names it (a report's id), so GET /jobs can list one
      // report's runs without exposing the payload. Walked as (kind, subject, id), newest first.
      await db.schema.alterTable('jobs').addColumn('subject', 'varchar(200)').execute();
      await db.schema.createIndex('jobs_subject').on('jobs').columns(['kind', 'subject', 'id']).execute().catch(alreadyThere);
    },
  },
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const binary = (db: Kysely<any>) =>
  db.getExecutor().adapter instanceof MysqlAdapter ? sql`longblob` : db.getExecutor().adapter instanceof PostgresAdapter ? sql`bytea` : sql`blob`;

function alreadyThere(err: { errno?: number; message?: string }): void {
  if (err?.errno !== 1061 && !/already exists/i.test(String(err?.message))) throw err;
}
