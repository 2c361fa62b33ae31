import type { Kysely } from 'kysely';
import type { KernelTables, MetaDb, Migration } from '../../kernel/api.js';

/**
 * Customer sessions from `POST /public/claim`. Only the token's SHA-256 is stored (as for
 * staff sessions, K7); `identity` is the JSON of the claimed identity columns, the filter
 * every statement of the session gets.
 */
export type PublicApiTables = {
  public_sessions: {
    id: string;
    token_hash: string;
    key_id: string;
    connection_id: string;
    table_ref: string;
    ref: string;
    identity: string;
    created_at: number;
    expires_at: number;
    ended_at: number | null;
  };
};

export type PublicApiDb = Kysely<KernelTables & PublicApiTables>;

export const publicApiDb = (db: MetaDb): PublicApiDb => db.withTables<PublicApiTables>();

// `ifNotExists`: MySQL commits DDL implicitly, so a migration there must survive a rerun (K10).
export const publicApiMigrations: Migration[] = [
  {
    name: '0001_public_sessions',
    async up(db) {
      await db.schema
        .createTable('public_sessions')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
        .addColumn('key_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('connection_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('table_ref', 'varchar(255)', (c) => c.notNull())
        .addColumn('ref', 'varchar(120)', (c) => c.notNull())
        .addColumn('identity', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('ended_at', 'bigint')
        .execute();
      await db.schema.createIndex('public_sessions_expires').ifNotExists().on('public_sessions').column('expires_at').execute();
    },
  },
];
