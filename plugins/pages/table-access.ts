import { readsColumn } from '../../engine/rows/index.js';
import { AppError, type Principal } from '../../kernel/api.js';
import type { EffectiveTable } from '../schema/provides.js';
import type { PageTableReader } from './provides.js';
import { DATA_READ } from './visibility.js';

/** A page's table as one caller may use it in a page's config, layout or views (decisions PG4). */
export interface CallerTable {
  table: EffectiveTable;
  /** Columns the caller reads: the data API's rule (decisions DA2). */
  readable: ReadonlySet<string>;
  /** Secret columns the caller's grant names: a detail or form field may show them masked (decisions PG5), nothing else may. */
  masked: ReadonlySet<string>;
}

/**
 * The columns the caller reads, by the data API's one rule (decisions DA2, `readsColumn` in the
 * engine; pages cannot reach the data plugin, which requires schema, which requires pages), and
 * the secret ones its grant names (masked fields, PG5).
 */
export function callerColumns(principal: Principal, connectionId: string, table: EffectiveTable): Omit<CallerTable, 'table'> {
  const grant = principal.permissions.grantOn(DATA_READ, connectionId, table.ref);
  const pk = new Set(table.primaryKey?.columns ?? []);
  const readable = new Set<string>();
  const masked = new Set<string>();
  for (const c of table.columns) {
    if (readsColumn(c, pk, grant)) readable.add(c.name);
    else if (c.display.secret && !pk.has(c.name) && grant !== null && (grant.all || grant.columns.has(c.name))) masked.add(c.name);
  }
  return { readable, masked };
}

/** Holds the reader the schema plugin registers (PagesProvides.setTableReader). */
export class TableAccess {
  private reader: PageTableReader | null = null;

  set(reader: PageTableReader): void {
    this.reader = reader;
  }

  /** The table, or null when the connection has none by that ref; 404 NOT_FOUND for an unknown connection. */
  async table(connectionId: string, ref: string): Promise<EffectiveTable | null> {
    if (!this.reader) throw new Error('pages: no table reader registered (the schema plugin registers it in its setup)');
    return this.reader(connectionId, ref);
  }

  /**
   * The table as the caller may use it; null when it does not exist or the caller's data.read
   * grant does not reach it (the two read alike: `unknown-table`).
   */
  async forCaller(principal: Principal, connectionId: string, ref: string): Promise<CallerTable | null> {
    const table = await this.table(connectionId, ref);
    if (!table || principal.permissions.grantOn(DATA_READ, connectionId, ref) === null) return null;
    return { table, ...callerColumns(principal, connectionId, table) };
  }

  /** forCaller for a page's own table; a table gone from the schema since is 400 `unknown-table` at `path`. */
  async ofPage(principal: Principal, page: { connectionId: string | null; table: string | null }, path: string): Promise<CallerTable> {
    const found = page.connectionId && page.table ? await this.forCaller(principal, page.connectionId, page.table) : null;
    if (!found)
      throw new AppError('VALIDATION_FAILED', {
        issues: [{ path, code: 'unknown-table', message: "The page's table is no longer in its connection's schema." }],
      });
    return found;
  }
}
