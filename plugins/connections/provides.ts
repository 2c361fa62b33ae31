import type { Kysely } from 'kysely';
import type { MetaDb } from '../../kernel/meta/types.js';

export type SourceDialect = 'postgres' | 'mysql' | 'sqlite';

/** A stored connection as other plugins see it: never its URL or password. */
export interface ConnectionInfo {
  id: string;
  name: string;
  dialect: SourceDialect;
  readOnly: boolean;
}

/** See ConnectionsProvides.onRemove. `trx` is the meta store inside the deleting transaction. */
export type ConnectionRemover = (connectionId: string, trx: MetaDb) => Promise<Record<string, number>>;

/** An open handle on a connection's database, from its pool. */
export interface SourceHandle {
  info: ConnectionInfo;
  // The operator's tables are not known at compile time.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
}

/**
 * What the connections plugin provides (`kernel.plugin<ConnectionsProvides>('connections')`
 * from a plugin that requires 'connections').
 */
export interface ConnectionsProvides {
  /** 404 NOT_FOUND when unknown. */
  info(connectionId: string): Promise<ConnectionInfo>;
  list(): Promise<ConnectionInfo[]>;
  /**
   * The pooled handle; 503 CONNECTION_UNAVAILABLE while the database cannot be reached (it
   * recovers by itself). Callers never close it: the pool belongs to the connection.
   */
  source(connectionId: string): Promise<SourceHandle>;
  /**
   * Registers what a plugin keeps about a connection, to go with it: `remove` runs inside the
   * meta-store transaction that deletes the connection, so either all of it goes or none, and
   * answers how many of what it removed (`{ snapshots: 3 }`), which the audit entry lists.
   */
  onRemove(remove: ConnectionRemover): void;
  /** Runs `fn`, turning a lost database into 503 CONNECTION_UNAVAILABLE. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  withSource<T>(connectionId: string, fn: (db: Kysely<any>, info: ConnectionInfo) => Promise<T>): Promise<T>;
}
