import type { Kysely } from 'kysely';
import type pg from 'pg';

/*
 * PostgreSQL's COPY has no place in kysely's query interface, so bulk paths (exports, imports)
 * borrow a client of the same pool: the connection's limits and session settings
 * (statement_timeout, read-only) hold for COPY too.
 */

/**
 * A PostgreSQL identifier as statement text, for the few places that cannot take kysely's
 * `sql.id` (COPY, startup options): quoted, with `"` doubled, exactly as kysely's compiler does.
 */
export function pgIdentifier(...path: string[]): string {
  return path.map((name) => `"${name.replace(/"/g, '""')}"`).join('.');
}

const pools = new WeakMap<object, () => Promise<pg.Pool>>();

/** Called by the PostgreSQL source driver for each source it opens: `pool` makes the pool once, or gives the one made. */
export function rememberPgPool(db: object, pool: () => Promise<pg.Pool>): void {
  pools.set(db, pool);
}

const ready = new WeakMap<object, pg.Pool>();

function selectOn(pool: pg.Pool, text: string, values: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }> {
  // Text and values apart, not a config object: pg copies a config object property by property.
  return pool.query<Record<string, unknown>>(text, values as unknown[]);
}

/**
 * A SELECT on the source's pool (the hot path of lists: no client borrowed and returned by
 * hand, no promise for the pool once it is made, pg's result as it comes: `.then` to take its
 * rows would be one more step through the microtask queue).
 */
export function queryPgRows(db: object, text: string, values: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }> {
  const pool = ready.get(db);
  if (pool) return selectOn(pool, text, values);
  const make = pools.get(db);
  if (!make) return Promise.reject(new Error('Not a PostgreSQL source opened by this process.'));
  return make().then((made) => {
    ready.set(db, made);
    return selectOn(made, text, values);
  });
}

/** True when `db` is a PostgreSQL source this process opened (so `withPgClient` can serve it). */
export function hasPgClient(db: object): boolean {
  return pools.has(db);
}

/**
 * Runs `fn` on one client of the source's pool. A client `fn` failed on is destroyed rather
 * than returned, so a half-read COPY or an open transaction never reaches the next caller.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function withPgClient<T>(db: Kysely<any>, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const pool = pools.get(db);
  if (!pool) throw new Error('Not a PostgreSQL source opened by this process.');
  const client = await (await pool()).connect();
  try {
    const value = await fn(client);
    client.release();
    return value;
  } catch (err) {
    client.release(err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
}
