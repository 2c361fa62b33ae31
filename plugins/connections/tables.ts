import type { Kysely } from 'kysely';
import type { KernelTables, MetaDb, Migration } from '../../kernel/api.js';

/**
 * One row per connection. The URL is stored only sealed (SecretBox 'connections'); host, port,
 * database, user and TLS mode are copied out of it in the clear so lists never decrypt.
 */
export type ConnectionsTables = {
  connections: {
    id: string;
    name: string;
    /** lower(name): the unique index makes names unique in any letter case, races included. */
    name_key: string;
    dialect: 'postgres' | 'mysql' | 'sqlite';
    url_sealed: string;
    read_only: number;
    host: string | null;
    port: number | null;
    database_name: string | null;
    user_name: string | null;
    tls: string | null;
    server_version: string | null;
    last_tested_at: number | null;
    last_test_ok: number | null;
    last_test_reason: string | null;
    last_test_latency_ms: number | null;
    /** JSON of the connection-level overrides; null = none. */
    overrides: string | null;
    created_at: number;
    updated_at: number;
  };
};

export type ConnectionRow = ConnectionsTables['connections'];
export type ConnectionsDb = Kysely<KernelTables & ConnectionsTables>;
export const connectionsDb = (db: MetaDb): ConnectionsDb => db.withTables<ConnectionsTables>();

// `ifNotExists`: MySQL commits DDL implicitly, so a migration there must survive a rerun (K10).
export const connectionsMigrations: Migration[] = [
  {
    name: '0001_connections',
    async up(db) {
      await db.schema
        .createTable('connections')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('name', 'varchar(120)', (c) => c.notNull())
        .addColumn('name_key', 'varchar(120)', (c) => c.notNull().unique())
        .addColumn('dialect', 'varchar(16)', (c) => c.notNull())
        .addColumn('url_sealed', 'text', (c) => c.notNull())
        .addColumn('read_only', 'integer', (c) => c.notNull())
        .addColumn('host', 'varchar(255)')
        .addColumn('port', 'integer')
        .addColumn('database_name', 'text')
        .addColumn('user_name', 'varchar(255)')
        .addColumn('tls', 'varchar(16)')
        .addColumn('server_version', 'varchar(255)')
        .addColumn('last_tested_at', 'bigint')
        .addColumn('last_test_ok', 'integer')
        .addColumn('last_test_reason', 'varchar(32)')
        .addColumn('last_test_latency_ms', 'double precision')
        .addColumn('overrides', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
];
