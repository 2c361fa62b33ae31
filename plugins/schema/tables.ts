import type { Kysely } from 'kysely';
import { type KernelTables, largeText, type MetaDb, type Migration } from '../../kernel/api.js';

export type SchemaTables = {
  /** Immutable: one row per structure a connection was seen to have, in time order. */
  schema_snapshots: {
    connection_id: string;
    id: string;
    hash: string;
    dialect: string | null;
    /** The canonical SchemaModel as JSON. */
    model: string;
    table_count: number;
    view_count: number;
    column_count: number;
    previous_id: string | null;
    queries: number;
    duration_ms: number;
    created_at: number;
  };
  /** The latest snapshot per connection; updated by compare-and-set so concurrent introspections store one snapshot. */
  schema_heads: { connection_id: string; snapshot_id: string; hash: string; updated_at: number };
  schema_overrides: { connection_id: string; overrides: string; version: number; updated_at: number };
};

export type SchemaDb = Kysely<KernelTables & SchemaTables>;
export const schemaDb = (db: MetaDb): SchemaDb => db.withTables<SchemaTables>();

// `ifNotExists` and no separate CREATE INDEX: MySQL commits DDL implicitly, so a migration there
// must survive a rerun (K10). The (connection_id, id) primary key is the index every list and
// lookup uses: snapshots are always read through their connection.
export const schemaMigrations: Migration[] = [
  {
    name: '0001_schema_snapshots',
    async up(db) {
      await db.schema
        .createTable('schema_snapshots')
        .ifNotExists()
        .addColumn('connection_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('id', 'varchar(32)', (c) => c.notNull())
        .addColumn('hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('dialect', 'varchar(16)')
        .addColumn('model', largeText(db), (c) => c.notNull())
        .addColumn('table_count', 'integer', (c) => c.notNull())
        .addColumn('view_count', 'integer', (c) => c.notNull())
        .addColumn('column_count', 'integer', (c) => c.notNull())
        .addColumn('previous_id', 'varchar(32)')
        .addColumn('queries', 'integer', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('schema_snapshots_pk', ['connection_id', 'id'])
        .execute();
      await db.schema
        .createTable('schema_heads')
        .ifNotExists()
        .addColumn('connection_id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('snapshot_id', 'varchar(32)', (c) => c.notNull())
        .addColumn('hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('schema_overrides')
        .ifNotExists()
        .addColumn('connection_id', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('overrides', largeText(db), (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
];
