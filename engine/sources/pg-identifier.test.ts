import { Kysely, PostgresDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { pgIdentifier } from './pg-client.js';

// Compiles only: no pool is ever asked for a connection.
const compiler = new Kysely<Record<string, never>>({ dialect: new PostgresDialect({ pool: async () => ({}) as never }) });

describe('pgIdentifier', () => {
  it('quotes a name exactly as kysely’s sql.id does, odd names included', () => {
    for (const name of ['plain', 'Mixed Case', 'with "quotes"', '"', 'semi;colon -- x', 'back\\slash', 'ünïcödé', 'a.b']) {
      expect(pgIdentifier(name)).toBe(sql`${sql.id(name)}`.compile(compiler).sql);
    }
  });

  it('joins a schema-qualified name with a dot outside the quotes', () => {
    expect(pgIdentifier('sales', 'order "items"')).toBe(sql`${sql.id('sales', 'order "items"')}`.compile(compiler).sql);
    expect(pgIdentifier('sales', 'orders')).toBe('"sales"."orders"');
  });
});
