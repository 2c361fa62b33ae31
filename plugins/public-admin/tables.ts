import type { Kysely } from 'kysely';
import { type KernelTables, largeText, type MetaDb, type Migration } from '../../kernel/api.js';

export type PublicAdminTables = {
  /** Stored endpoints. A generated endpoint has a row only once a key grants it or it is edited. */
  public_scopes: {
    id: string;
    ref: string;
    /** lower(ref): the unique index keeps refs unique in any letter case, races included. */
    ref_key: string;
    connection_id: string;
    table_ref: string;
    /** `<connectionId>:<table>` for a table's generated endpoint, null for extra ones: one generated endpoint per table. */
    generated_key: string | null;
    /** 1 once an admin changed it; 0 while it is the generated form stored because a key granted it. */
    edited: number;
    /** The definition (EndpointDefinition minus what the row and the schema say) as JSON. */
    definition: string;
    addon_key: string | null;
    created_at: number;
    updated_at: number;
  };
  public_keys: {
    id: string;
    name: string;
    kind: 'browser' | 'server';
    prefix: string;
    /** SHA-256 of the secret; every lookup goes by it. */
    key_hash: string;
    /** Browser keys only (they can be revealed): the secret sealed with SecretBox('public-keys'). */
    secret_sealed: string | null;
    expires: '30d' | '90d' | 'never';
    expires_at: number | null;
    addon_key: string | null;
    peak: number | null;
    created_by: string | null;
    created_at: number;
    rotated_at: number | null;
    revoked_at: number | null;
    /** An app key while its app is disabled (D27): refused like a revoked key, back when the app is enabled. */
    suspended_at: number | null;
    /** An app key of one of its app's named instances (D28); null for the app's default instance and for every other key. */
    addon_instance: string | null;
    /** JSON `{[ref]: InstanceRule}`: what the instance's key reaches of each app endpoint (its rows, its booking rules). */
    instance_rules: string | null;
  };
  /** Which stored endpoints a key may use, with which methods (a JSON array). */
  public_key_grants: { key_id: string; scope_id: string; methods: string };
  /** Requests per key and hour, for the keys page's approximate requests-in-24-hours figure. */
  public_key_usage: { key_id: string; hour: number; count: number };
  /** Edited e-mail templates (D15); a missing row means the registered default. */
  email_templates: { key: string; locale: string; subject: string; text: string; html: string | null; updated_at: number };
};

export type PublicAdminDb = Kysely<KernelTables & PublicAdminTables>;
export const publicAdminDb = (db: MetaDb): PublicAdminDb => db.withTables<PublicAdminTables>();

// `ifNotExists` and indexes declared inside CREATE TABLE (unique columns, primary keys): MySQL
// commits DDL implicitly, so a migration there must survive a rerun (K10).
export const publicAdminMigrations: Migration[] = [
  {
    name: '0001_public_admin',
    async up(db) {
      await db.schema
        .createTable('public_scopes')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('ref', 'varchar(255)', (c) => c.notNull())
        .addColumn('ref_key', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('connection_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('table_ref', 'varchar(255)', (c) => c.notNull())
        .addColumn('generated_key', 'varchar(330)', (c) => c.unique())
        .addColumn('edited', 'integer', (c) => c.notNull())
        .addColumn('definition', largeText(db), (c) => c.notNull())
        .addColumn('addon_key', 'varchar(100)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('public_keys')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(120)', (c) => c.notNull())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('prefix', 'varchar(16)', (c) => c.notNull())
        .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('secret_sealed', 'text')
        .addColumn('expires', 'varchar(8)', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('addon_key', 'varchar(100)')
        .addColumn('peak', 'integer')
        .addColumn('created_by', 'varchar(32)')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('rotated_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema
        .createTable('public_key_grants')
        .ifNotExists()
        .addColumn('key_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('scope_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('methods', 'varchar(200)', (c) => c.notNull())
        .addPrimaryKeyConstraint('public_key_grants_pk', ['key_id', 'scope_id'])
        .execute();
      await db.schema
        .createTable('public_key_usage')
        .ifNotExists()
        .addColumn('key_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addColumn('count', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('public_key_usage_pk', ['key_id', 'hour'])
        .execute();
      await db.schema
        .createTable('email_templates')
        .ifNotExists()
        .addColumn('key', 'varchar(100)', (c) => c.notNull())
        .addColumn('locale', 'varchar(35)', (c) => c.notNull())
        .addColumn('subject', 'varchar(300)', (c) => c.notNull())
        .addColumn('text', largeText(db), (c) => c.notNull())
        .addColumn('html', largeText(db))
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('email_templates_pk', ['key', 'locale'])
        .execute();
    },
  },
  {
    name: '0002_app_key_suspension',
    async up(db) {
      await db.schema.alterTable('public_keys').addColumn('suspended_at', 'bigint').execute();
    },
  },
  {
    name: '0003_app_key_instances',
    async up(db) {
      await db.schema.alterTable('public_keys').addColumn('addon_instance', 'varchar(40)').execute();
    },
  },
  {
    // Its own migration: MySQL commits each ALTER at once, so one step per migration reruns cleanly.
    name: '0004_app_key_instance_rules',
    async up(db) {
      await db.schema.alterTable('public_keys').addColumn('instance_rules', largeText(db)).execute();
    },
  },
];
