import { MysqlAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * A text column for values past 64 KiB (JSON documents, packages): MySQL's TEXT stops there, so
 * it gets LONGTEXT; PostgreSQL's and SQLite's TEXT are unbounded.
 */
// Migrations see the meta store before its types exist.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const largeText = (db: Kysely<any>): RawBuilder<unknown> => (db.getExecutor().adapter instanceof MysqlAdapter ? sql`longtext` : sql`text`);

/**
 * Runs a CREATE INDEX that a rerun of its migration may meet already made: MySQL commits DDL at
 * once (K10) and MySQL 8 has no CREATE INDEX IF NOT EXISTS, so "already exists" (1061) passes.
 */
export async function rerunnable(step: Promise<unknown>): Promise<void> {
  await step.catch((err: { errno?: number; message?: string }) => {
    if (err?.errno !== 1061 && !/already exists/i.test(String(err?.message))) throw err;
  });
}
