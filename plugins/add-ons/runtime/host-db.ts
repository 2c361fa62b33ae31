import { physicalTableName, type AddonManifest } from '../../../addons-sdk/src/manifest/index.js';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { AppError, type Json, type Kernel, type TokenSigner } from '../../../kernel/api.js';
import {
  deleteRow,
  insertRow,
  listRows,
  parseListParams,
  parseWire,
  primaryKeyColumns,
  readRow,
  rowDialect,
  RowInputError,
  toWireRow,
  updateRow,
  whereSql,
  orderKeys,
  decodeRowCursor,
  type ListParams,
  type PortableValue,
  cursorContext,
  keysetSql,
  orderBySql,
  type RowDialect,
} from '../../../engine/rows/index.js';
import { DB_READ_BYTES, rowBytes } from '../../../engine/sources/read-bytes.js';
import { DEFAULT_INSTANCE, INSTANCE_COLUMN } from '../lifecycle/instances.js';
import { connectionsRef } from '../../connections/provides.js';
import { schemaRef, type EffectiveTable } from '../../schema/provides.js';
import { offThreadSqlite, SqliteWorker, withStatementDeadline } from './sqlite-off-thread.js';

const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', { message: `The rows are over ${DB_READ_BYTES / (1024 * 1024)} MiB: ask for fewer (limit).` });

/**
 * What a column's value weighs, as the database counts it without sending it (bytes of text and
 * blobs; 8 for a value of fixed size, as valueBytes counts it). PostgreSQL's octet_length reads
 * a TOASTed value's length from its header, uncompressed: a value that compresses well still
 * weighs what it will be once read.
 */
function columnBytesSql(dialect: 'postgres' | 'mysql', c: EffectiveTable['columns'][number]): RawBuilder<unknown> {
  const col = sql.id(c.name);
  const weighed =
    c.type === 'binary'
      ? dialect === 'postgres'
        ? sql`octet_length(${col})`
        : sql`length(${col})`
      : SIZED.has(c.type)
        ? dialect === 'postgres'
          ? sql`octet_length(cast(${col} as text))`
          : sql`length(${col})`
        : null;
  return weighed ? sql`${sql.lit(c.name.length)} + coalesce(${weighed}, 0)` : sql.lit(c.name.length + 8);
}
/** Types whose values have no fixed size. */
const SIZED = new Set(['string', 'text', 'enum', 'json', 'other']);

/** Rows the first weighing of a page sums; each next one sums four times as many, up to the page. */
const FIRST_WEIGHED = 16;

/**
 * Whether the page `p` would read (its rows in its order, after its cursor) is over
 * DB_READ_BYTES, summed by the database: a server source sends every row of a page at once, so
 * such a page is refused before any of it is read. The sum is taken over the first 16 rows, then
 * 64…, so that the database stops soon after the page's first large rows (MySQL reads a value to
 * weigh it) rather than weigh all of a large page.
 */
async function pageOverLimit(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  dialect: 'postgres' | 'mysql',
  d: RowDialect,
  table: EffectiveTable,
  p: ListParams,
  signer: TokenSigner,
): Promise<boolean> {
  const keys = orderKeys(table, p.sort);
  const cursor =
    p.cursor === null
      ? null
      : decodeRowCursor(p.cursor, p.sortText, primaryKeyColumns(table).length > 0 ? keys.length : null, 'query.cursor', {
          signer,
          context: cursorContext(table, keys),
        });
  const conditions: RawBuilder<unknown>[] = [];
  const where = whereSql(d, p.filters, p.search, []);
  if (where) conditions.push(where);
  if (cursor && 'keys' in cursor) conditions.push(keysetSql(d, keys, cursor.keys));
  const offset = cursor && 'offset' in cursor ? cursor.offset : 0;
  const weight = sql.join(
    table.columns.map((c) => columnBytesSql(dialect, c)),
    sql` + `,
  );
  for (let rows = Math.min(FIRST_WEIGHED, p.limit); ; rows = Math.min(rows * 4, p.limit)) {
    const r = await sql<{ bytes: unknown }>`select coalesce(sum(n), 0) as bytes from (select ${weight} as n from ${d.table(table)}${
      conditions.length ? sql` where ${sql.join(conditions, sql` and `)}` : sql``
    }${keys.length ? sql` order by ${orderBySql(d, keys)}` : sql``} limit ${sql.lit(rows)}${offset ? sql` offset ${sql.lit(offset)}` : sql``}) page`.execute(
      db,
    );
    if (Number(r.rows[0]?.bytes ?? 0) > DB_READ_BYTES) return true;
    if (rows === p.limit) return false;
  }
}

const OPS = new Set(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'like', 'null']);

const denied = (message: string) => new AppError('ADDON_HOST_DENIED', { message });

/** A row-layer refusal as the add-on sees it: 400 with the column. */
function asInput(err: unknown): unknown {
  if (err instanceof RowInputError)
    return new AppError('VALIDATION_FAILED', { issues: err.issues.map((i) => ({ path: i.path, code: 'invalid', message: i.message })) });
  return err;
}

/** `where` of the SDK (`{ status: 'open', seats: { gte: 2 } }`) as the data API's query parameters. */
function whereQuery(where: unknown): Record<string, string> {
  if (where === undefined || where === null) return {};
  if (typeof where !== 'object' || Array.isArray(where)) throw new AppError('VALIDATION_FAILED', { message: 'where is an object of column conditions.' });
  const out: Record<string, string> = {};
  for (const [column, cond] of Object.entries(where as Record<string, unknown>)) {
    const pairs: Array<[string, unknown]> = cond !== null && typeof cond === 'object' && !Array.isArray(cond) ? Object.entries(cond) : [['eq', cond]];
    for (const [op, value] of pairs) {
      if (!OPS.has(op)) throw new AppError('VALIDATION_FAILED', { message: `Unknown operator ${op}.` });
      if (op === 'eq' && value === null) out[`filter[${column}][null]`] = 'true';
      else out[`filter[${column}][${op}]`] = Array.isArray(value) ? value.map(String).join(',') : String(value);
    }
  }
  return out;
}

/**
 * `ctx.db` of an add-on (D25): list, get, insert, update and delete on its own tables only, on
 * the connection its tables live on, through the kernel's row layer (the data API's filter
 * grammar and wire values). Writes through ctx.db do not run the add-on's own hooks.
 */
export class HostDb {
  private readonly sqlite = new SqliteWorker();
  /** The off-thread handle of each SQLite source handle (a source opened again gets a new one). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly offThread = new WeakMap<object, Promise<Kysely<any>>>();

  constructor(private readonly kernel: Kernel) {}

  async close(): Promise<void> {
    await this.sqlite.close();
  }

  /** The source's file, as SQLite names it, read once per source handle. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private sqliteOf(source: Kysely<any>, readOnly: boolean): Promise<Kysely<any>> {
    let db = this.offThread.get(source);
    if (!db) {
      db = sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(source).then((r) => {
        const file = r.rows[0]?.file;
        if (!file) throw denied('The SQLite source has no file.');
        return offThreadSqlite(this.sqlite, { file, readOnly, maxBytes: DB_READ_BYTES });
      });
      db.catch(() => this.offThread.delete(source));
      this.offThread.set(source, db);
    }
    return db;
  }

  private async table(m: AddonManifest, connectionId: string | null, name: unknown): Promise<EffectiveTable> {
    if (typeof name !== 'string' || !m.tables.some((t) => t.name === name)) throw denied(`${String(name)} is not one of the add-on's tables.`);
    if (!connectionId) throw denied('The add-on has no connection.');
    const table = await this.kernel.plugin(schemaRef).table(connectionId, physicalTableName(m.key, name));
    if (!table) throw denied(`The table ${name} is not on the add-on's connection.`);
    return table;
  }

  private keyOf(table: EffectiveTable, id: unknown): PortableValue[] {
    const pk = primaryKeyColumns(table);
    if (pk.length === 0) throw denied('The table has no primary key.');
    const parts =
      id !== null && typeof id === 'object' && !Array.isArray(id) ? pk.map((c) => (id as Record<string, unknown>)[c.name]) : pk.length === 1 ? [id] : null;
    if (!parts) throw new AppError('VALIDATION_FAILED', { message: `Name the row by its key: { ${pk.map((c) => c.name).join(', ')} }.` });
    return pk.map((c, i) => parseWire(c, parts[i], `id.${c.name}`));
  }

  private values(table: EffectiveTable, values: unknown) {
    if (values === null || typeof values !== 'object' || Array.isArray(values))
      throw new AppError('VALIDATION_FAILED', { message: 'values is an object of column values.' });
    return Object.entries(values as Record<string, unknown>).map(([name, v]) => {
      const column = table.columns.find((c) => c.name === name);
      if (!column) throw new AppError('VALIDATION_FAILED', { message: `No column ${name}.` });
      return [column, parseWire(column, v, `values.${name}`)] as const;
    });
  }

  /**
   * One ctx.db call of a hook or action run for `instance` (D28): it reads, changes and deletes
   * only rows whose instance column holds that id, and what it inserts is that instance's. A
   * table made before the instance column existed (an install not upgraded since) has only the
   * default instance's rows and is read as before. `deadline` (epoch ms): the host call's; on
   * SQLite a statement still running then is stopped (sqlite-off-thread.ts).
   */
  async call(
    m: AddonManifest,
    connectionId: string | null,
    method: string,
    args: Json[],
    instance: string = DEFAULT_INSTANCE,
    deadline: number | null = null,
  ): Promise<Json> {
    const table = await this.table(m, connectionId, args[0]);
    const connections = this.kernel.plugin(connectionsRef);
    const instanceColumn = table.columns.find((c) => c.name === INSTANCE_COLUMN) ?? null;
    if (!instanceColumn && instance !== DEFAULT_INSTANCE) throw denied(`The table ${String(args[0])} has no instance column yet.`);
    try {
      const work = () =>
        connections.withSource(connectionId!, async (source, info) => {
          // better-sqlite3 blocks its thread: an add-on's statements run in a worker thread of their own.
          const db = info.dialect === 'sqlite' ? await this.sqliteOf(source, info.readOnly) : source;
          const d = rowDialect(info.dialect);
          const cols = table.columns;
          /** The row by key, when it is this instance's. */
          const own = async (key: PortableValue[]) => {
            const raw = await readRow(db, d, table, key, cols);
            return raw && (!instanceColumn || String(raw[cols.indexOf(instanceColumn)]) === instance) ? raw : null;
          };
          /** Values to write: the instance column is the host's to set. */
          const values = (v: unknown) => this.values(table, v).filter(([c]) => c.name !== INSTANCE_COLUMN);
          switch (method) {
            case 'list': {
              const o = (args[1] ?? {}) as { where?: unknown; sort?: unknown; limit?: unknown; cursor?: unknown };
              const query: Record<string, unknown> = { ...whereQuery(o.where) };
              // ANDed with what the add-on asked for: another instance's rows never match.
              if (instanceColumn) query[`filter[${INSTANCE_COLUMN}][eq]`] = instance;
              if (Array.isArray(o.sort)) query.sort = o.sort.map(String).join(',');
              if (o.limit !== undefined) query.limit = String(o.limit);
              if (typeof o.cursor === 'string') query.cursor = o.cursor;
              const params = parseListParams(query, { table, readable: new Set(cols.map((c) => c.name)) });
              const options = { output: cols, searchable: [], cursors: this.kernel.signer(`addon.cursor.${m.key}`), recordIds: false };
              // SQLite's worker stops reading as the rows pass DB_READ_BYTES; a server source sends a
              // page whole, so the database weighs it first. Rows read are weighed again, for a page
              // that grew between the two statements.
              if (info.dialect !== 'sqlite' && (await pageOverLimit(db, info.dialect, d, table, params, options.cursors))) throw tooLarge();
              const page = await listRows(db, d, table, params, options);
              let bytes = 0;
              for (const row of page.rows) bytes += rowBytes(row);
              if (bytes > DB_READ_BYTES) throw tooLarge();
              return { rows: page.rows, next: page.nextCursor };
            }
            case 'get': {
              const raw = await own(this.keyOf(table, args[1]));
              return raw ? toWireRow(d, cols, raw) : null;
            }
            case 'insert':
              return toWireRow(
                d,
                cols,
                await insertRow(db, d, table, [...values(args[1]), ...(instanceColumn ? [[instanceColumn, instance] as const] : [])], cols),
              );
            case 'update': {
              const key = this.keyOf(table, args[1]);
              const raw = (await own(key)) && (await updateRow(db, d, table, key, values(args[2]), cols));
              if (!raw) throw new AppError('NOT_FOUND', { message: 'No such row.' });
              return toWireRow(d, cols, raw);
            }
            case 'delete': {
              const key = this.keyOf(table, args[1]);
              return (await own(key)) ? deleteRow(db, d, table, key) : false;
            }
            default:
              throw denied(`db.${method} is not a host function.`);
          }
        });
      return (await (deadline === null ? work() : withStatementDeadline(deadline, work))) as Json;
    } catch (err) {
      throw asInput(err);
    }
  }
}
