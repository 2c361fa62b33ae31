import type { DatabaseConnection, Dialect, Driver } from 'kysely';
import { wrapDriver } from './dialect-wrap.js';

/**
 * The meta store's server did not give us a connection: nothing listens, it takes no
 * connections (a database closed to them, too many clients, a locked account, a password
 * changed under us). Whatever the server's words, the store is unavailable (503
 * META_UNAVAILABLE), not a bug of ours (500): the reason stays in `cause` for the log.
 */
export class MetaConnectRefused extends Error {
  override name = 'MetaConnectRefused';
  constructor(cause: unknown) {
    super(`The meta store refused a connection: ${(cause as { message?: unknown })?.message ?? String(cause)}`, { cause });
  }
}

/** Errors of acquiring a connection become MetaConnectRefused; statements keep their own errors. */
export function refusalsTagged(dialect: Dialect): Dialect {
  return wrapDriver(dialect, (driver): Driver => {
    return {
      init: () => driver.init(),
      async acquireConnection(): Promise<DatabaseConnection> {
        try {
          return await driver.acquireConnection();
        } catch (err) {
          throw new MetaConnectRefused(err);
        }
      },
      beginTransaction: (c, settings) => driver.beginTransaction(c, settings),
      commitTransaction: (c) => driver.commitTransaction(c),
      rollbackTransaction: (c) => driver.rollbackTransaction(c),
      ...(driver.savepoint ? { savepoint: driver.savepoint.bind(driver) } : {}),
      ...(driver.rollbackToSavepoint ? { rollbackToSavepoint: driver.rollbackToSavepoint.bind(driver) } : {}),
      ...(driver.releaseSavepoint ? { releaseSavepoint: driver.releaseSavepoint.bind(driver) } : {}),
      releaseConnection: (c) => driver.releaseConnection(c),
      destroy: () => driver.destroy(),
    };
  });
}
