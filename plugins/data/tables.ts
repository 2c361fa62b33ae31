import type { Kysely } from 'kysely';
import { type KernelTables, largeText, type MetaDb, type Migration, rerunnableIndex } from '../../kernel/api.js';

export type DataTables = {
  data_undo: {
    id: string;
    /** SHA-256 of the token: the token itself is a capability and is never stored. */
    token_hash: string;
    actor_type: string;
    actor_id: string | null;
    connection_id: string;
    action: string;
    /** The sealed JSON of the undo steps (row values, secret and personal columns included). */
    payload: string | null;
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
};

export type DataDb = Kysely<KernelTables & DataTables>;
export const dataDb = (db: MetaDb): DataDb => db.withTables<DataTables>();

export const dataMigrations: Migration[] = [
  {
    name: '0001_data_undo',
    async up(db) {
      await db.schema
        .createTable('data_undo')
        .ifNotExists()
        .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
        .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
        .addColumn('actor_type', 'varchar(16)', (c) => c.notNull())
        .addColumn('actor_id', 'varchar(64)')
        .addColumn('connection_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('action', 'varchar(16)', (c) => c.notNull())
        .addColumn('payload', largeText(db))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .addUniqueConstraint('data_undo_token_unique', ['token_hash'])
        .execute();
      await rerunnableIndex(db.schema.createIndex('data_undo_expiry').on('data_undo').column('expires_at').execute());
    },
  },
];
