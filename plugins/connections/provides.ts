import type { Kysely } from 'kysely';
import { defineServiceRef, type MetaDb } from '../../kernel/api.js';

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

/** What introspecting a new connection stored (see ConnectionsProvides.introspectOnCreate). */
export interface IntrospectionSummary {
  snapshotId: string;
  tableCount: number;
  viewCount: number;
  columnCount: number;
}

/** Reads a connection's schema and stores a snapshot; throws (an AppError, typically) when it cannot. */
export type CreateIntrospector = (connectionId: string) => Promise<IntrospectionSummary>;

/** An open handle on a connection's database, from its pool. */
export interface SourceHandle {
  info: ConnectionInfo;
  // The operator's tables are not known at compile time.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
}

/**
 * What the connections plugin provides (`kernel.plugin(connectionsRef)`
 * from a plugin that requires 'connections').
 */
export interface ConnectionsProvides {
  /** 404 NOT_FOUND when unknown. */
  info(connectionId: string): Promise<ConnectionInfo>;
  /** `info` when the connection's row is at hand without reading the meta store (K40); undefined otherwise (ask `info`). */
  infoNow(connectionId: string): ConnectionInfo | undefined;
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
  /**
   * The schema plugin's introspection, run by POST /connections once the connection is saved, so
   * a new connection can be read at once. Its outcome is part of the answer; a failure does not
   * undo the save.
   */
  introspectOnCreate(introspect: CreateIntrospector): void;
  /** Runs `fn`, turning a lost database into 503 CONNECTION_UNAVAILABLE. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  withSource<T>(connectionId: string, fn: (db: Kysely<any>, info: ConnectionInfo) => Promise<T>): Promise<T>;
  /**
   * `withSource` on a second pool of the connection whose sessions are read-only and end any
   * statement after `limits.statementTimeoutMs`, both set when a session opens (PostgreSQL's
   * startup packet), so a bounded read is one round trip instead of a transaction of three. It
   * is opened on first use, replaced with the connection's settings and closed with its pool.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  withReadSource<T>(connectionId: string, limits: ReadSourceLimits, fn: (db: Kysely<any>, info: ConnectionInfo) => Promise<T>): Promise<T>;
}

/** See ConnectionsProvides.withReadSource. */
export interface ReadSourceLimits {
  statementTimeoutMs: number;
}

/** `kernel.plugin(connectionsRef)` from a plugin that requires 'connections'. */
export const connectionsRef = defineServiceRef<ConnectionsProvides>('connections');
