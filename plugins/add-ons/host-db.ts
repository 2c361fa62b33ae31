import { physicalTableName, type AddonManifest } from '../../addons-sdk/src/manifest/index.js';
import { AppError } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel-services.js';
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
  type PortableValue,
} from '../../kernel/rows/index.js';
import type { Json } from '../../kernel/sandbox/host.js';
import { DEFAULT_INSTANCE, INSTANCE_COLUMN } from './instances.js';
import type { ConnectionsProvides } from '../connections/provides.js';
import type { EffectiveTable, SchemaProvides } from '../schema/provides.js';

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
  constructor(private readonly kernel: Kernel) {}

  private async table(m: AddonManifest, connectionId: string | null, name: unknown): Promise<EffectiveTable> {
    if (typeof name !== 'string' || !m.tables.some((t) => t.name === name)) throw denied(`${String(name)} is not one of the add-on's tables.`);
    if (!connectionId) throw denied('The add-on has no connection.');
    const table = await this.kernel.plugin<SchemaProvides>('schema').table(connectionId, physicalTableName(m.key, name));
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
   * default instance's rows and is read as before.
   */
  async call(m: AddonManifest, connectionId: string | null, method: string, args: Json[], instance: string = DEFAULT_INSTANCE): Promise<Json> {
    const table = await this.table(m, connectionId, args[0]);
    const connections = this.kernel.plugin<ConnectionsProvides>('connections');
    const instanceColumn = table.columns.find((c) => c.name === INSTANCE_COLUMN) ?? null;
    if (!instanceColumn && instance !== DEFAULT_INSTANCE) throw denied(`The table ${String(args[0])} has no instance column yet.`);
    try {
      return (await connections.withSource(connectionId!, async (db, info) => {
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
            const page = await listRows(db, d, table, params, {
              output: cols,
              searchable: [],
              cursors: this.kernel.signer(`addon.cursor.${m.key}`),
              recordIds: false,
            });
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
      })) as Json;
    } catch (err) {
      throw asInput(err);
    }
  }
}
