import type { Database, Statement } from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * The embedded store's database with its prepared statements kept: kysely prepares every query
 * it runs, and compiling the same SQL again on each request cost more than running it. A
 * statement that is still being iterated (a stream) is busy, so a query arriving meanwhile gets a
 * fresh one. The cache is bounded (least recently used goes first): the meta store's statements
 * are a fixed set, but a query built with a variable number of values has one text per count.
 */
export function withStatementCache(db: Database, max = 500): SqliteDatabase {
  const statements = new Map<string, Statement>();
  return {
    close: () => {
      statements.clear();
      db.close();
    },
    prepare(text: string) {
      const known = statements.get(text);
      if (known && !known.busy) {
        statements.delete(text);
        statements.set(text, known);
        return known;
      }
      const fresh = db.prepare(text);
      if (known) return fresh;
      statements.set(text, fresh);
      if (statements.size > max) statements.delete(statements.keys().next().value!);
      return fresh;
    },
  };
}
