import type { PoolConnection, TypedParameter, TypedParameterValue } from 'mysql2';

/** Statements worth keeping: reads and writes of rows, not DDL, transactions or settings. */
const ROW_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Prepared statements kept per connection (mysql2's `maxPreparedStatements`, least recently used
 * closed first). The meta store's hot statements are a few dozen texts; a query built with a
 * variable number of values has one text per count. The server caps them all together
 * (`max_prepared_stmt_count`, 16,382 by default): 10 connections × 200 leaves room for replicas.
 */
export const MYSQL_MAX_PREPARED = 200;

/** Failures of preparing, before anything ran: the text protocol runs the statement instead. */
const CANNOT_PREPARE = new Set(['ER_MAX_PREPARED_STMT_COUNT_REACHED', 'ER_UNSUPPORTED_PS']);

type Done = (err: (Error & { code?: string }) | null, result?: unknown, fields?: unknown) => void;

/**
 * The values as the binary protocol should carry them to mean what `query()` makes of them, or
 * null when one of them would mean something else there. `query()` writes values into the text:
 * an integer is a literal integer, but the binary protocol would send a JS number as a DOUBLE (a
 * `limit ?` bound so is refused by MySQL 8, and `? + 1` would answer a double), so integers go
 * as BIGINT. Strings, booleans (TINYINT 0/1 as the literal `true`/`false`) and NULL mean the
 * same in both. Anything else (a fraction, which the text makes a DECIMAL; a Date, a Buffer, a
 * bigint, an array or object, which `query()` expands) stays on the text protocol.
 */
export function bindValues(values: readonly unknown[], types: Pick<TypedParameter, 'BIGINT'>): unknown[] | null {
  const out: unknown[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || typeof v === 'string' || typeof v === 'boolean') out[i] = v;
    else if (typeof v === 'number' && Number.isSafeInteger(v)) out[i] = types.BIGINT(v) satisfies TypedParameterValue;
    else return null;
  }
  return out;
}

/**
 * Makes a meta-store connection run row statements as server-side prepared statements: kysely
 * sends every query as text, so MySQL/MariaDB parses it again each time; prepared (`execute()`),
 * a text is parsed once per connection and then only bound and run. mysql2 keeps the statements
 * by text (bounded by the pool's `maxPreparedStatements`). Results are the same as the text
 * protocol's for the column types the meta store uses (integers, bigints, doubles, text, varchar,
 * NULL; decimals and dates too), not for FLOAT, which the binary protocol returns as the exact
 * single-precision value (0.10000000149011612 where text says 0.1): the meta store has none.
 * Only kysely's callback form (`query(text, values, done)`) is redirected; streams keep `query()`.
 */
export function keepPreparedStatements(conn: PoolConnection, types: Pick<TypedParameter, 'BIGINT'>): void {
  const query = conn.query.bind(conn) as (...args: unknown[]) => unknown;
  const execute = conn.execute.bind(conn) as (text: string, values: unknown[], done: Done) => unknown;
  conn.query = ((...args: unknown[]) => {
    const [text, values, done] = args;
    if (args.length === 3 && typeof text === 'string' && Array.isArray(values) && typeof done === 'function' && ROW_STATEMENT.test(text)) {
      const bound = bindValues(values, types);
      if (bound) {
        return execute(text, bound, (err, result, fields) => {
          if (err && CANNOT_PREPARE.has(err.code ?? '')) query(text, values, done);
          else (done as Done)(err, result, fields);
        });
      }
    }
    return query(...args);
  }) as typeof conn.query;
}
