import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { isStorageFull } from '../storage-full.js';
import { wrapDriver } from './dialect-wrap.js';

/** The table of a write whose table cannot be told (raw SQL that is no plain insert, update or delete): any table may have changed. */
export const ANY_TABLE = '*';

/** Past this many keys a statement counts as one that does not tell which rows it wrote. */
const MAX_KEYS = 10_000;

/** A row write the meta store made: the table, what kind, and for an update the columns it set. */
export interface MetaWrite {
  op: 'insert' | 'update' | 'delete';
  table: string;
  /** For an update, the columns set; empty otherwise (and for an update through raw SQL). */
  columns: readonly string[];
  /**
   * The key values of every row the statement can have written, given the table's key columns
   * (each row's values in `key`'s order; a few more rows than written is fine), or null when the
   * statement does not tell: a range, a subquery, an upsert on another unique key, a key column
   * set by an update. Absent (raw SQL, a write reported by hand): does not tell. Worked out only
   * when asked (a relocation), from the statement's operation tree.
   */
  keysOf?: (key: readonly string[]) => unknown[][] | null;
}

type Listener = (write: MetaWrite) => void;

/**
 * Tells listeners about the meta store's row writes as they happen, and once more when the
 * transaction they were part of ends: a cache dropped at the statement could be filled again
 * from the old rows by a reader on another connection until the commit, so it is dropped again
 * then. Writes through raw SQL (kysely's `sql` tag) are told from the statement's first words:
 * the table and the kind, never the rows, and a statement it cannot place as ANY_TABLE (MR4).
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

/** The parts of kysely's operation nodes read here (each node kind uses a few of them). */
interface Node {
  kind?: string;
  table?: Node;
  identifier?: Node;
  name?: string;
  node?: Node;
  froms?: readonly Node[];
  column?: Node;
  value?: unknown;
  values?: readonly unknown[] | Node;
  where?: Node;
  left?: Node;
  right?: Node;
  leftOperand?: Node;
  operator?: Node | string;
  rightOperand?: Node;
}

interface WriteQuery {
  kind?: string;
  into?: Node;
  table?: Node;
  from?: Node;
  updates?: readonly Node[];
  columns?: readonly Node[];
  values?: Node;
  where?: Node;
  with?: unknown;
  joins?: readonly unknown[];
  using?: unknown;
  replace?: boolean;
  onDuplicateKey?: unknown;
  orAction?: { action?: string };
  onConflict?: { columns?: readonly Node[]; doNothing?: boolean };
}

/** The table's name in a TableNode, possibly under an alias. */
function tableName(node: Node | undefined): string | null {
  if (!node) return null;
  if (node.kind === 'AliasNode') return tableName(node.node);
  if (node.kind === 'TableNode') return node.table?.identifier?.name ?? null;
  return null;
}

/** A column's name in a ColumnNode or a ReferenceNode naming one. */
function columnName(node: Node | undefined): string | null {
  if (node?.kind === 'ReferenceNode') return columnName(node.column);
  if (node?.kind === 'ColumnNode') return node.column?.name ?? null;
  return null;
}

const NOT_KNOWN = Symbol('not known');

/** A bound value (not an expression, a default or a subquery). */
function boundValue(node: unknown): unknown {
  const n = node as Node | undefined;
  return n?.kind === 'ValueNode' ? n.value : NOT_KNOWN;
}

/** The values of `= v` or `in (v, …)`, when bound; null otherwise. */
function valuesOf(operator: string, right: Node | undefined): unknown[] | null {
  if (operator === '=') {
    const v = boundValue(right);
    return v === NOT_KNOWN ? null : [v];
  }
  if (operator !== 'in' || !right || !Array.isArray(right.values)) return null;
  if (right.kind === 'PrimitiveValueListNode') return [...right.values];
  if (right.kind !== 'ValueListNode') return null;
  const out = right.values.map(boundValue);
  return out.includes(NOT_KNOWN) ? null : out;
}

/**
 * What a WHERE says of each column, as the values a row written must hold there: read from its
 * `column = value` and `column in (…)` terms joined by `and`. A term of another shape (an `or`, a
 * range, a subquery) narrows nothing, which leaves what the others say true: the rows written
 * are among those the known terms allow.
 */
function narrowing(node: Node | undefined, into = new Map<string, unknown[]>()): Map<string, unknown[]> {
  switch (node?.kind) {
    case 'WhereNode':
      return narrowing(node.where, into);
    case 'ParensNode':
      return narrowing(node.node, into);
    case 'AndNode':
      narrowing(node.left, into);
      return narrowing(node.right, into);
    case 'BinaryOperationNode': {
      const column = columnName(node.leftOperand);
      const op = typeof node.operator === 'object' ? node.operator.operator : undefined;
      const values = column && typeof op === 'string' ? valuesOf(op.toLowerCase(), node.rightOperand) : null;
      const had = column ? into.get(column) : undefined;
      if (column && values && (!had || values.length < had.length)) into.set(column, values);
      return into;
    }
    default:
      return into;
  }
}

/** Every combination of the key columns' values, in `key`'s order; null past MAX_KEYS. */
function combinations(lists: readonly unknown[][]): unknown[][] | null {
  let out: unknown[][] = [[]];
  for (const list of lists) {
    if (out.length * list.length > MAX_KEYS) return null;
    out = out.flatMap((prefix) => list.map((v) => [...prefix, v]));
  }
  return out;
}

/** The key values of an insert's rows; null when a key column is not among its bound values or a conflict can write another row. */
function insertedKeys(q: WriteQuery, key: readonly string[]): unknown[][] | null {
  if (q.with || q.replace || q.onDuplicateKey || q.orAction?.action?.toLowerCase() === 'replace') return null;
  if (q.onConflict && !q.onConflict.doNothing) {
    // An update on conflict writes the row holding the same values in the conflict's columns:
    // the same key only when those include the whole key.
    const target = (q.onConflict.columns ?? []).map(columnName);
    if (!key.every((k) => target.includes(k))) return null;
  }
  const columns = (q.columns ?? []).map(columnName);
  const at = key.map((k) => columns.indexOf(k));
  if (at.includes(-1) || q.values?.kind !== 'ValuesNode' || !Array.isArray(q.values.values)) return null;
  if (q.values.values.length > MAX_KEYS) return null;
  const out: unknown[][] = [];
  for (const item of q.values.values as readonly Node[]) {
    if (!Array.isArray(item.values)) return null;
    const row = item.kind === 'PrimitiveValueListNode' ? at.map((i) => item.values![i as never]) : at.map((i) => boundValue((item.values as unknown[])[i]));
    if (row.includes(NOT_KNOWN)) return null;
    out.push(row);
  }
  return out;
}

/** The key values of the rows an update or delete can reach, from its WHERE; null when it does not pin every key column. */
function reachedKeys(q: WriteQuery, key: readonly string[], setColumns: readonly string[]): unknown[][] | null {
  // Other tables joined in (an update's `from`, a delete's `using`): the WHERE may name their columns.
  if (q.with || (q.kind === 'UpdateQueryNode' && q.from) || q.using || (q.joins?.length ?? 0) > 0) return null;
  // An update of a key column moves the row to a key the WHERE does not name.
  if (setColumns.some((c) => key.includes(c))) return null;
  const narrowed = narrowing(q.where);
  const lists = key.map((k) => narrowed.get(k));
  if (lists.some((l) => l === undefined)) return null;
  return combinations(lists as unknown[][]);
}

/** Raw statements that write no row: reads, transaction control, session settings, schema changes. */
const RAW_NOT_A_ROW_WRITE =
  /^\s*(select|pragma|show|explain|describe|values|begin|start\s+transaction|commit|rollback|end|savepoint|release|set|reset|discard|listen|unlisten|notify|deallocate|analyze|vacuum|checkpoint|lock|create|alter|drop|comment|grant|revoke)\b/i;
const RAW_WITH = /^\s*with\b/i;
const RAW_DML_WORD = /\b(insert|update|delete|replace|merge|truncate)\b/i;
const RAW_WRITE =
  /^\s*(?:(insert)(?:\s+or\s+\w+|\s+ignore)?\s+into|(replace)\s+into|(update)(?:\s+or\s+\w+)?|(delete)\s+from|(truncate)(?:\s+table)?)\s+(?:only\s+)?(?:[`"]?\w+[`"]?\.)?[`"]?(\w+)[`"]?(?=[\s(;,]|$)/i;

/** What a raw statement (kysely's `sql` tag) writes, told from its text conservatively. */
function rawWrites(text: string): MetaWrite[] {
  if (RAW_WITH.test(text)) return RAW_DML_WORD.test(text) ? [{ op: 'update', table: ANY_TABLE, columns: [] }] : [];
  if (RAW_NOT_A_ROW_WRITE.test(text)) return [];
  const m = RAW_WRITE.exec(text);
  if (!m) return [{ op: 'update', table: ANY_TABLE, columns: [] }];
  const op = m[1] ? 'insert' : m[3] ? 'update' : m[2] ? 'insert' : 'delete';
  const writes: MetaWrite[] = [{ op, table: m[6]!, columns: [] }];
  // `replace` deletes the rows it collides with; an update's or delete's text may name other tables.
  const rest = text
    .slice(m.index + m[0].length)
    .replace(/\bon\s+conflict\b[\s\S]*$/i, '')
    .replace(/\bon\s+duplicate\s+key\s+update\b/i, '');
  if (m[2] || RAW_DML_WORD.test(rest)) writes.push({ op: 'update', table: ANY_TABLE, columns: [] });
  return writes;
}

/**
 * What a compiled statement writes: from kysely's operation tree for the query builder's
 * statements, from the text for raw SQL (a statement it cannot place is a write to ANY_TABLE).
 * Nothing for reads.
 */
export function writesOf(compiled: Pick<CompiledQuery, 'query' | 'sql'>): MetaWrite[] {
  const q = compiled.query as WriteQuery;
  // A common table expression may write tables of its own (PostgreSQL).
  const more: MetaWrite[] = q.with ? [{ op: 'update', table: ANY_TABLE, columns: [] }] : [];
  if (q.kind === 'InsertQueryNode') {
    const table = tableName(q.into);
    return table ? [{ op: 'insert', table, columns: [], keysOf: (key) => insertedKeys(q, key) }, ...more] : more;
  }
  if (q.kind === 'UpdateQueryNode') {
    const table = tableName(q.table);
    const columns = (q.updates ?? []).map((u) => columnName(u.column) ?? '').filter(Boolean);
    return table ? [{ op: 'update', table, columns, keysOf: (key) => reachedKeys(q, key, columns) }, ...more] : more;
  }
  if (q.kind === 'DeleteQueryNode') {
    const froms = q.from?.froms ?? [];
    const tables = froms.map(tableName);
    if (tables.length === 0 || tables.includes(null)) return [{ op: 'delete', table: ANY_TABLE, columns: [] }];
    if (tables.length > 1) return [...tables.map((table) => ({ op: 'delete' as const, table: table!, columns: [] })), ...more];
    return [{ op: 'delete', table: tables[0]!, columns: [], keysOf: (key) => reachedKeys(q, key, []) }, ...more];
  }
  if (q.kind === 'RawNode' || q.kind === undefined) return rawWrites(compiled.sql);
  return [];
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
    const writes = writesOf(compiled);
    try {
      const result = await this.inner.executeQuery<R>(compiled);
      if (writes[0]?.op === 'insert') this.writes.storage?.inserted();
      return result;
    } catch (err) {
      if (isStorageFull(err)) this.writes.storage?.full();
      throw err;
    } finally {
      for (const write of writes) {
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
