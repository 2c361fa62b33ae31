import type { Kysely } from 'kysely';
import type { FailureReason } from './failure.js';

/** The dialects an operator's database ("source") can speak. */
export type SourceDialect = 'postgres' | 'mysql' | 'sqlite';
export const SOURCE_DIALECTS = ['postgres', 'mysql', 'sqlite'] as const satisfies readonly SourceDialect[];

/** `disable`: plain TCP; `require`: encrypted, certificate not checked; `verify-full`: encrypted and verified. */
export type TlsMode = 'disable' | 'require' | 'verify-full';
export const TLS_MODES = ['disable', 'require', 'verify-full'] as const satisfies readonly TlsMode[];

export interface ServerTarget {
  dialect: 'postgres' | 'mysql';
  host: string;
  port: number;
  database: string;
  user: string | null;
  password: string | null;
  tls: TlsMode;
}

export interface FileTarget {
  dialect: 'sqlite';
  /** Absolute path of an existing database file. */
  file: string;
}

/** A parsed connection URL. Holds the password: never log it or put it in an answer. */
export type SourceTarget = ServerTarget | FileTarget;

/** The limits a pool runs under. */
export interface SourceSettings {
  poolSize: number;
  connectTimeoutMs: number;
  /** PostgreSQL statement_timeout, MySQL max_execution_time / MariaDB max_statement_time; SQLite has none. */
  statementTimeoutMs: number;
  /** An idle connection is closed after this long. */
  idleTimeoutMs: number;
  /** Enforced by the database session too, not only by the API. */
  readOnly: boolean;
  /** PostgreSQL search_path; ignored elsewhere. */
  defaultSchema: string | null;
}

export const DEFAULT_SOURCE_SETTINGS: SourceSettings = {
  poolSize: 5,
  connectTimeoutMs: 5000,
  statementTimeoutMs: 30_000,
  idleTimeoutMs: 30_000,
  readOnly: false,
  defaultSchema: null,
};

// The operator's tables are not known at compile time.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SourceDb = Kysely<any>;

/** What differs per dialect, one small file each (`dialects/<dialect>.ts`). */
export interface SourceDriver<T extends SourceTarget = SourceTarget> {
  dialect: SourceDialect;
  /** A lazy pool: nothing connects until the first query. `onLost` hears a connection dropping. */
  open(target: T, settings: SourceSettings, onLost: (err: unknown) => void): SourceDb;
  /** The version string the server reports about itself. */
  serverVersion(db: SourceDb): Promise<string>;
  /**
   * Why connecting failed, when `err` is about reaching the database at all (network, TLS,
   * credentials, missing database or file); null for an ordinary query error.
   */
  classify(err: unknown): FailureReason | null;
  /** Checks that need no connection (the SQLite file exists and is a file). */
  precheck?(target: T): FailureReason | null;
  /** Changes when the thing behind the target was replaced (a SQLite file swapped for another). */
  identity?(target: T): string | null;
}
