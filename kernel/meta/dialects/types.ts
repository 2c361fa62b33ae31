import type { Kysely } from 'kysely';
import type { Dialect } from '../types.js';

/** What differs between meta-store dialects, one small file per dialect. */
export interface MetaDialectHelpers {
  dialect: Dialect;
  /** Runs `fn` while holding the cross-process migration lock, on one connection. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  withMigrationLock<T>(db: Kysely<any>, fn: (conn: Kysely<any>) => Promise<T>): Promise<T>;
  /** Whether DDL inside a transaction is rolled back with it. */
  transactionalDdl: boolean;
  /** Network/IO failures that mean "the store is not reachable", as opposed to a bad query. */
  isUnreachable(err: unknown): boolean;
}

const NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
]);

export function isNetworkError(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NET_CODES.has(code)) return true;
    const msg = (e as { message?: unknown }).message;
    if (
      typeof msg === 'string' &&
      /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Connection lost|Can't add new command when connection is in closed state|Client has encountered a connection error/i.test(
        msg,
      )
    )
      return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
