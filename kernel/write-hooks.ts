/**
 * Hooks on row writes (DESIGN D25 `<table>.beforeWrite` / `<table>.afterWrite`): the data API
 * and the public API call them around every insert, update and delete; whoever owns hooks on a
 * table (the add-ons plugin) registers a provider. Without one, `active` is false and a write
 * pays one map lookup.
 */
export type RowWriteOp = 'insert' | 'update' | 'delete';

export interface BeforeRowWrite {
  connectionId: string;
  table: string;
  op: RowWriteOp;
  /** Wire values being written (insert, update); empty for delete. */
  values: Record<string, unknown>;
  /** The row as it is now (update, delete), in wire values; null for insert. */
  previous: Record<string, unknown> | null;
  /**
   * Column values the writing endpoint's `eq` default filters fix (a public write; the row
   * cannot leave them), e.g. the app instance a key writes for (D28). Absent for the data API.
   */
  pinned?: Record<string, unknown>;
}

export interface AfterRowWrite {
  connectionId: string;
  table: string;
  op: RowWriteOp;
  /** The row as written (insert, update) or as it was (delete). */
  row: Record<string, unknown>;
}

export interface RowWriteHookProvider {
  /** Whether this provider hooks writes of the table at all (synchronous, cheap). */
  hooks(connectionId: string, table: string): boolean;
  /** May throw a typed error to refuse the write; answers the values to write instead, or null for unchanged. */
  before(e: BeforeRowWrite): Promise<Record<string, unknown> | null>;
  /** After the write committed; never fails the write. */
  after(e: AfterRowWrite): void;
}

export class RowWriteHooks {
  private readonly providers = new Set<RowWriteHookProvider>();

  register(provider: RowWriteHookProvider): () => void {
    this.providers.add(provider);
    return () => this.providers.delete(provider);
  }

  active(connectionId: string, table: string): boolean {
    for (const p of this.providers) if (p.hooks(connectionId, table)) return true;
    return false;
  }

  /** Runs every provider's beforeWrite in turn, each seeing the values the previous one left. */
  async before(e: BeforeRowWrite): Promise<Record<string, unknown>> {
    let values = e.values;
    for (const p of this.providers) {
      if (!p.hooks(e.connectionId, e.table)) continue;
      values = (await p.before({ ...e, values })) ?? values;
    }
    return values;
  }

  after(e: AfterRowWrite): void {
    for (const p of this.providers) if (p.hooks(e.connectionId, e.table)) p.after(e);
  }
}
