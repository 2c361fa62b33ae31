import { MysqlAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * A text column for values past 64 KiB (JSON documents, packages): MySQL's TEXT stops there, so
 * it gets LONGTEXT; PostgreSQL's and SQLite's TEXT are unbounded.
 */
// Migrations see the meta store before its types exist.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const largeText = (db: Kysely<any>): RawBuilder<unknown> => (db.getExecutor().adapter instanceof MysqlAdapter ? sql`longtext` : sql`text`);
