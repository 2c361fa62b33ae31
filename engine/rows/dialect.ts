import type { CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { Column } from '../schema/model.js';
import type { PortableValue, RowsDialectName, RowTable } from './types.js';
import type { BoundStatement } from './statements.js';

// The operator's tables are not known at compile time.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = Kysely<any>;

/** Why the database refused a write, in words every dialect shares. */
export interface WriteFailure {
  reason: 'unique' | 'foreign-key' | 'not-null' | 'check' | 'invalid';
  /** The constraint or column the database named, when it did. */
  constraint: string | null;
}

/** Everything about rows that differs between PostgreSQL, MySQL/MariaDB and SQLite. */
export interface RowDialect {
  readonly name: RowsDialectName;
  /** The table as an identifier: schema-qualified where the dialect has schemas. */
  table(t: RowTable): RawBuilder<unknown>;
  /** How a column is selected, so `toWire` always meets one predictable form. */
  select(c: Column): RawBuilder<unknown>;
  /** A selected value → its wire value (README). */
  toWire(c: Column, raw: unknown): unknown;
  /** A checked value → a driver parameter for this column. */
  bind(c: Column, v: PortableValue): unknown;
  /** What ORDER BY and the keyset compare: the column, unless its order and its comparisons disagree. */
  order(c: Column): RawBuilder<unknown>;
  /** True when `ORDER BY col` already sorts NULL as the largest value (no `col IS NULL` key needed). */
  readonly nullsLargest: boolean;
  /** Case-insensitive LIKE; the pattern uses `!` as its escape character. It is a parameter: its value, or a statements.ts Slot for it. */
  ilike(c: Column, pattern: unknown): RawBuilder<unknown>;
  /** INSERT/UPDATE … RETURNING. */
  readonly returning: boolean;
  /** SELECT … FOR UPDATE locks rows (SQLite serialises writers instead). */
  readonly forUpdate: boolean;
  /** Words after `INSERT INTO t (cols)`, before VALUES (PostgreSQL's OVERRIDING SYSTEM VALUE). */
  insertModifier(t: RowTable, columns: Column[]): RawBuilder<unknown> | null;
  /** An INSERT of a row made only of defaults. */
  defaultValues(t: RowTable): RawBuilder<unknown>;
  /**
   * Runs a SELECT straight on the driver, where that is cheaper than going through kysely's
   * executor (a result whose rows are as kysely would give them); null when it cannot (kysely then runs it).
   */
  readRows?(db: AnyDb, query: BoundStatement): Promise<{ rows: Record<string, unknown>[] }> | null;
  /** The planner's row estimate for a query, or null. */
  explainRows(db: AnyDb, q: CompiledQuery): Promise<number | null>;
  writeFailure(err: unknown): WriteFailure | null;
  /** The error says a table or column is missing: the database changed since it was introspected. */
  missingObject(err: unknown): boolean;
}
