import type { Kysely } from 'kysely';
import { canonicalModel, type SchemaModel } from '../model.js';
import { introspectMysql } from './mysql.js';
import { introspectPostgres } from './postgres.js';
import { introspectSqlite } from './sqlite.js';

export type IntrospectDialect = 'postgres' | 'mysql' | 'sqlite';

export interface IntrospectOptions {
  /**
   * PostgreSQL namespaces (default: every non-system schema), MySQL databases (default: the
   * connection's current one) or SQLite attached databases (default: `main`).
   */
  schemas?: string[];
}

export interface IntrospectResult {
  /** Canonical (see canonicalModel), so two reads of an unchanged database are deep-equal. */
  model: SchemaModel;
  /** Queries sent: a constant per dialect (and per schema on SQLite), never one per table. */
  queries: number;
}

/**
 * Reads what a connection holds into the shared SchemaModel.
 *
 * Conventions every dialect follows:
 * - `primaryKey` columns are in key order; `foreignKeys` columns pair up with `referencedColumns`.
 * - `indexes` lists every index except the primary key's, including those that back unique
 *   constraints (`unique: true`); `uniques` lists every unique constraint and every non-partial
 *   unique index. So one uniqueness may appear in both lists: MySQL cannot tell a unique
 *   constraint from a unique index, and this way the three dialects agree.
 * - An auto-increment column (identity, serial, AUTO_INCREMENT, SQLite rowid alias) has
 *   `autoIncrement: true` and `default: null` (a serial's nextval() is how it is filled in).
 * - Generated columns have `default: null` and their expression in `generated`.
 * - `default` is an SQL expression as the database spells it (`'draft'::text` on PostgreSQL,
 *   `current_timestamp()` on MariaDB); an explicit DEFAULT NULL reads as null.
 * - Names are exactly as stored (case, spaces, quotes, non-ASCII), never quoted.
 */
export async function introspect(db: Kysely<any>, dialect: IntrospectDialect, opts: IntrospectOptions = {}): Promise<IntrospectResult> {
  const schemas = opts.schemas && opts.schemas.length > 0 ? opts.schemas : undefined;
  const read = dialect === 'postgres' ? introspectPostgres : dialect === 'mysql' ? introspectMysql : introspectSqlite;
  const { model, queries } = await read(db, schemas);
  return { model: canonicalModel(model), queries };
}
