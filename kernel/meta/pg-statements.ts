import { createHash } from 'node:crypto';
import type pg from 'pg';

/** Statements worth keeping: reads and writes of rows, not DDL, transactions or settings. */
const ROW_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Makes a meta-store client keep its prepared statements: kysely sends every query unnamed, so
 * PostgreSQL parses and plans it again each time; named, it is parsed once per connection and
 * then only bound and run. The name is a digest of the text, so one text always has one name.
 * At most `max` names per connection: a query built with a variable number of values has one
 * text per count, and each name costs the server memory for the connection's life.
 */
export function keepPreparedStatements(client: pg.PoolClient, max = 300): void {
  const named = new Set<string>();
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values) && ROW_STATEMENT.test(text)) {
      const name = `m_${createHash('sha1').update(text).digest('base64url')}`;
      if (named.has(name) || named.size < max) {
        named.add(name);
        return query({ name, text, values });
      }
    }
    return query(...args);
  }) as typeof client.query;
}
