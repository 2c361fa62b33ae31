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
  /** `tableView` when the connection's effective schema is at hand (K40); undefined when it must be read first (ask `tableView`). */
  tableViewNow(principal: Principal, connectionId: string, ref: string): ReadView | null | undefined;
}

/** `kernel.plugin(dataRef)` from a plugin that requires 'data'. */
export const dataRef = defineServiceRef<DataProvides>('data');
