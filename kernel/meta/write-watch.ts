import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { isStorageFull } from '../storage-full.js';
import { wrapDriver } from './dialect-wrap.js';

/** A row write the meta store made: the table, what kind, and for an update the columns it set. */
export interface MetaWrite {
  op: 'insert' | 'update' | 'delete';
  table: string;
  /** For an update, the columns set; empty otherwise. */
  columns: readonly string[];
}

type Listener = (write: MetaWrite) => void;

/**
 * Tells listeners about the meta store's row writes as they happen, and once more when the
 * transaction they were part of ends: a cache dropped at the statement could be filled again
 * from the old rows by a reader on another connection until the commit, so it is dropped again
 * then. Writes through raw SQL (kysely's `sql` tag) are not seen; the identity tables are only
 * written through the query builder.
 */
export class MetaWrites {
  private readonly listeners = new Set<Listener>();
  /** Told when a statement fails for a full storage, and when an insert succeeds (decisions K44). */
  storage: { full(): void; inserted(): void } | null = null;

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(write: MetaWrite): void {
    for (const l of this.listeners) l(write);
  }
}

interface Named {
  kind?: string;
  table?: Named;
  identifier?: Named;
  name?: string;
  node?: Named;
  froms?: readonly Named[];
  column?: Named;
}

/** The table's name in a TableNode, possibly under an alias. */
function tableName(node: Named | undefined): string | null {
  if (!node) return null;
  if (node.kind === 'AliasNode') return tableName(node.node);
  if (node.kind === 'TableNode') return node.table?.identifier?.name ?? null;
  return null;
}

/** What a compiled statement writes, from kysely's operation tree; null for reads and raw SQL. */
export function writeOf(query: unknown): MetaWrite | null {
  const q = query as { kind?: string; into?: Named; table?: Named; from?: Named; updates?: readonly Named[] };
  if (q.kind === 'InsertQueryNode') {
    const table = tableName(q.into);
    return table ? { op: 'insert', table, columns: [] } : null;
  }
  if (q.kind === 'UpdateQueryNode') {
    const table = tableName(q.table);
    const columns = (q.updates ?? []).map((u) => u.column?.column?.name ?? '').filter(Boolean);
    return table ? { op: 'update', table, columns } : null;
  }
  if (q.kind === 'DeleteQueryNode') {
    const table = tableName(q.from?.froms?.[0]);
    return table ? { op: 'delete', table, columns: [] } : null;
  }
  return null;
}

/** `dialect` whose connections report their row writes to `writes`. */
export function writesWatched(dialect: Dialect, writes: MetaWrites): Dialect {
  return wrapDriver(dialect, (driver): Driver => {
    const watched = new WeakMap<DatabaseConnection, WatchedConnection>();
    const unwrap = (c: DatabaseConnection) => (c as WatchedConnection).inner ?? c;
    return {
      init: () => driver.init(),
      async acquireConnection(): Promise<DatabaseConnection> {
        const inner = await driver.acquireConnection();
        let c = watched.get(inner);
        if (!c) watched.set(inner, (c = new WatchedConnection(inner, writes)));
        return c;
      },
      async beginTransaction(c, settings) {
        await driver.beginTransaction(unwrap(c), settings);
        (c as WatchedConnection).pending = [];
      },
      async commitTransaction(c) {
        try {
          await driver.commitTransaction(unwrap(c));
        } catch (err) {
          // SQLite may find the disk full only when it commits.
          if (isStorageFull(err)) writes.storage?.full();
          throw err;
        } finally {
          (c as WatchedConnection).settle();
        }
      },
      async rollbackTransaction(c) {
        try {
          await driver.rollbackTransaction(unwrap(c));
        } finally {
          (c as WatchedConnection).settle();
        }
      },
      ...(driver.savepoint ? { savepoint: (c, name, compile) => driver.savepoint!(unwrap(c), name, compile) } : {}),
      ...(driver.rollbackToSavepoint ? { rollbackToSavepoint: (c, name, compile) => driver.rollbackToSavepoint!(unwrap(c), name, compile) } : {}),
      ...(driver.releaseSavepoint ? { releaseSavepoint: (c, name, compile) => driver.releaseSavepoint!(unwrap(c), name, compile) } : {}),
      releaseConnection: (c) => driver.releaseConnection(unwrap(c)),
      destroy: () => driver.destroy(),
    };
  });
}

class WatchedConnection implements DatabaseConnection {
  /** Writes of the open transaction, told again when it ends; null outside a transaction. */
  pending: MetaWrite[] | null = null;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly writes: MetaWrites,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const write = writeOf(compiled.query);
    try {
      const result = await this.inner.executeQuery<R>(compiled);
      if (write?.op === 'insert') this.writes.storage?.inserted();
      return result;
    } catch (err) {
      if (isStorageFull(err)) this.writes.storage?.full();
      throw err;
    } finally {
      if (write) {
        this.writes.emit(write);
        this.pending?.push(write);
      }
    }
  }

  streamQuery<R>(compiled: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiled, chunkSize);
  }

  settle(): void {
    const done = this.pending ?? [];
    this.pending = null;
    for (const w of done) this.writes.emit(w);
  }
}
