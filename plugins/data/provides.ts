import { defineServiceRef, type Principal } from '../../kernel/api.js';
import type { EffectiveColumn, EffectiveTable } from '../schema/provides.js';

export const DATA_READ = 'data.read';

/** The columns a caller may read in one table (decisions DA2), as other plugins see them. */
export interface ReadView {
  table: EffectiveTable;
  /** In the table's column order: secret columns never, personal ones only under a grant without a column list. */
  readable: EffectiveColumn[];
  readableNames: ReadonlySet<string>;
  /** The caller's data.read grant reaches every column of the table (no column list). */
  wholeTable: boolean;
}

/**
 * What the data plugin provides (`kernel.plugin(dataRef)` from a plugin that requires 'data'):
 * the rule of which columns a caller reads, so widgets, search and reports never restate it.
 */
export interface DataProvides {
  /**
   * The table and the columns the caller reads, or null when no data.read grant reaches it or the
   * connection's effective schema has no such table (answer 404 either way, as /data does).
   * Throws 404 NOT_FOUND for an unknown connection.
   */
  tableView(principal: Principal, connectionId: string, ref: string): Promise<ReadView | null>;
  /**
   * A dry run of row changes on one connection, with the caller's grants: for each change, the
   * row as it is now in the columns the caller reads (null for a create, or a row not found) and
   * what a write would be refused for (no write grant, a read-only table or connection, the
   * codec's types, columns the caller may not write, required columns, the key). Nothing is written.
   */
  checkChanges(principal: Principal, connectionId: string, changes: readonly RowChange[]): Promise<RowChangeCheck[]>;
  /**
   * Writes the changes in one transaction on the connection through the same writer as /data
   * (add-ons' beforeWrite and afterWrite hooks, `data.changed` events, one undo token kept
   * `undoTtlMs`), with the caller's permissions: all of them or none (refusals as /data's bulk
   * write, `params.index` naming the change). Answers what the audit trail keeps per table
   * (secret columns redacted), for the caller's own audit entry.
   */
  applyChanges(principal: Principal, connectionId: string, changes: readonly RowChange[], opts: { undoTtlMs: number }): Promise<AppliedChanges>;
  /**
   * Reverts a token of applyChanges (every table it wrote) if every row still holds what it
   * left, else 409 CONFLICT with `params.rows` listing each row changed since (table, recordId,
   * reason) and nothing reverted. `anyAuthor`: the caller's plugin checked who may undo it.
   * `dryRun`: every check and the same 409, but the revert is rolled back and the token stays
   * usable (a caller that also undoes its own things checks them all before acting).
   */
  undoChanges(principal: Principal, token: string, opts: { anyAuthor: boolean; dryRun?: boolean }): Promise<{ connectionId: string; results: AppliedRow[] }>;
  /** `tableView` when the connection's effective schema is at hand (K40); undefined when it must be read first (ask `tableView`). */
  tableViewNow(principal: Principal, connectionId: string, ref: string): ReadView | null | undefined;
}

/** One row change of applyChanges: a create takes its key among the values. */
export interface RowChange {
  table: string;
  op: 'create' | 'update' | 'delete';
  recordId?: string;
  values?: Record<string, unknown>;
}

export interface RowChangeCheck {
  /** The row now, in the columns the caller reads; null for a create or a missing row. */
  before: Record<string, unknown> | null;
  /** Empty when nothing is seen to refuse the change. */
  problems: string[];
}

export interface AppliedRow {
  table: string;
  op: 'create' | 'update' | 'delete';
  recordId: string;
}

export interface AppliedChanges {
  undoToken: string;
  undoExpiresAt: number;
  results: AppliedRow[];
  /** Per table, what the audit trail keeps of the write (as data.bulk's entry). */
  audit: Array<{ connectionId: string; table: string; changes: unknown[] }>;
}

/** `kernel.plugin(dataRef)` from a plugin that requires 'data'. */
export const dataRef = defineServiceRef<DataProvides>('data');
