import { createHash } from 'node:crypto';
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

/**
 * A source's pool once made, with its server-side prepared statements for repeated SELECTs
 * (decisions K42): PostgreSQL parses and plans a kept list text once per connection, not on
 * every page. A text is named by its hash; at most MAX_NAMED texts per pool, since each holds a
 * plan on every connection.
 */
interface ReadyPool {
  readonly pool: pg.Pool;
  /** Set when the server lost or mixed up names: a transaction-mode pooler sits in between. */
  namesOff: boolean;
  readonly names: Map<string, string>;
}

const ready = new WeakMap<object, ReadyPool>();
const MAX_NAMED = 256;

function nameFor(on: ReadyPool, text: string): string | null {
  if (on.namesOff) return null;
  let name = on.names.get(text);
  if (name === undefined) {
    if (on.names.size >= MAX_NAMED) return null;
    on.names.set(text, (name = `svc_${createHash('sha256').update(text).digest('hex').slice(0, 40)}`));
  }
  return name;
}

/**
 * Whether a named SELECT that failed is run again unnamed. 26000 (no such prepared statement)
 * and 42P05 (it exists already) mean a pooler hands our connection's statements to other server
 * connections: names are turned off for the pool. 0A000 is a table changed under a kept plan
 * ("cached plan must not change result type"): pg-pool drops the connection that failed, so
 * the next one prepares afresh.
 */
function runAgainUnnamed(on: ReadyPool, err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === '26000' || code === '42P05') {
    on.namesOff = true;
    return true;
  }
  return code === '0A000';
}

type Rows = { rows: Record<string, unknown>[] };

function selectOn(on: ReadyPool, text: string, values: readonly unknown[], repeated: boolean): Promise<Rows> {
  const { pool } = on;
  const name = repeated ? nameFor(on, text) : null;
  // Text and values apart when unnamed: pg copies a config object property by property.
  if (name === null) return pool.query<Record<string, unknown>>(text, values as unknown[]);
  // Callbacks, not pool.query's promise and a catch: a page takes no more steps than unnamed.
  return new Promise<Rows>((resolve, reject) => {
    pool.query<Record<string, unknown>>({ name, text, values: values as unknown[] }, (err, res) => {
      if (!err) resolve(res);
      else if (!runAgainUnnamed(on, err)) reject(err);
      else pool.query<Record<string, unknown>>(text, values as unknown[], (again, res2) => (again ? reject(again) : resolve(res2)));
    });
  });
}

/**
 * A SELECT on the source's pool (the hot path of lists: no client borrowed and returned by
 * hand, no promise for the pool once it is made, pg's result as it comes: `.then` to take its
 * rows would be one more step through the microtask queue). `repeated`: the text is run again
 * and again (a kept list statement), so it is prepared on the server.
 */
export function queryPgRows(db: object, text: string, values: readonly unknown[], repeated = false): Promise<Rows> {
  const on = ready.get(db);
  if (on) return selectOn(on, text, values, repeated);
  const make = pools.get(db);
  if (!make) return Promise.reject(new Error('Not a PostgreSQL source opened by this process.'));
  return make().then((pool) => {
    let made = ready.get(db);
    if (!made) ready.set(db, (made = { pool, namesOff: false, names: new Map() }));
    return selectOn(made, text, values, repeated);
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
