import type { ConnectionInfo } from '../../connections/provides.js';
import type { EffectiveModel, EffectiveTable } from '../../schema/provides.js';
import { DEFAULT_RATE_LIMIT, DEFAULT_TIME_ZONE } from './definition.js';
import type { EndpointDefinition, PublicMethod } from '../provides.js';

/** One table as the rules see it: the table, the model around it (for foreign keys) and its connection. */
export interface TableContext {
  connection: ConnectionInfo;
  model: EffectiveModel;
  table: EffectiveTable;
}

const TEXTUAL = new Set(['string', 'text', 'enum', 'uuid']);

export const isComputed = (t: EffectiveTable, name: string) => t.columns.find((c) => c.name === name)?.generated != null;

/**
 * How a new row gets its key when the caller sends none. The database fills auto-increment,
 * identity and defaulted columns; a lone uuid column the data plane can fill with a random
 * UUID. Anything else (a natural key, a composite of foreign keys) only the caller can choose.
 */
export function keyFill(t: EffectiveTable): EndpointDefinition['keyFill'] {
  const pk = t.primaryKey?.columns ?? [];
  if (t.kind !== 'table' || pk.length === 0) return null;
  const cols = pk.map((name) => t.columns.find((c) => c.name === name));
  if (cols.every((c) => c && (c.autoIncrement || c.default !== null || c.generated !== null))) return 'database';
  if (cols.length === 1 && cols[0]!.type === 'uuid') return 'uuid';
  return null;
}

function references(fk: { referencedTable: string; referencedSchema: string | null }, from: EffectiveTable, to: EffectiveTable): boolean {
  if (fk.referencedTable !== to.name) return false;
  // SQLite and MySQL report no namespace on one side or the other; the name then decides.
  const schema = fk.referencedSchema ?? from.schema;
  return schema === null || to.schema === null || schema === to.schema;
}

/**
 * Tables a DELETE on `t` would reach through ON DELETE CASCADE: rows the endpoint was never
 * granted. A self-reference only counts when default filters narrow the endpoint (a cascade
 * could then reach rows outside them). SET NULL / SET DEFAULT change but do not remove rows, and
 * RESTRICT / NO ACTION make the DELETE fail instead: neither withholds DELETE.
 */
export function cascadeTargets(model: EffectiveModel, t: EffectiveTable, filtered: boolean): string[] {
  const out: string[] = [];
  for (const other of model.tables) {
    if (other === t && !filtered) continue;
    if (other.foreignKeys.some((fk) => fk.onDelete === 'cascade' && references(fk, other, t))) out.push(other.ref);
  }
  return out;
}

/**
 * The methods a table can offer an endpoint at all. Tables without a primary key, views and
 * read-only connections offer GET only. POST needs a key the server can choose, or (an admin's
 * edit) the key columns writable; DELETE needs no cascade into other rows, unless allowed.
 */
export function offeredMethods(ctx: TableContext, opts: { allowCascade: boolean; filtered: boolean; writable: readonly string[] }): PublicMethod[] {
  const { table: t } = ctx;
  const pk = t.primaryKey?.columns ?? [];
  if (t.kind !== 'table' || pk.length === 0 || ctx.connection.readOnly) return ['GET'];
  const out: PublicMethod[] = ['GET'];
  if (keyFill(t) !== null || pk.every((c) => opts.writable.includes(c))) out.push('POST');
  out.push('PATCH', 'PUT');
  if (opts.allowCascade || cascadeTargets(ctx.model, t, opts.filtered).length === 0) out.push('DELETE');
  out.push('BATCH');
  return out;
}

/** Every column that is neither secret nor personal data, in table order. */
export function generatedColumns(t: EffectiveTable): string[] {
  return t.columns.filter((c) => !c.display.secret && !c.display.personal).map((c) => c.name);
}

/** The generated (virtual) endpoint of a table under `ref` (seed "Public endpoint"). */
export function generatedDefinition(ctx: TableContext, ref: string): EndpointDefinition {
  const { table: t } = ctx;
  const pk = t.primaryKey?.columns ?? [];
  const columns = generatedColumns(t);
  // The key is the server's to choose and never changes; computed columns cannot be written.
  const writable =
    t.kind === 'table' && pk.length > 0
      ? columns.filter((c) => !pk.includes(c) && !isComputed(t, c) && !t.columns.find((x) => x.name === c)?.autoIncrement)
      : [];
  const textual = new Set(t.columns.filter((c) => TEXTUAL.has(c.type)).map((c) => c.name));
  return {
    id: null,
    ref,
    connectionId: ctx.connection.id,
    table: t.ref,
    virtual: true,
    generated: true,
    methods: offeredMethods(ctx, { allowCascade: false, filtered: false, writable }),
    columns,
    writable,
    defaults: {},
    filters: [],
    filterable: [...columns],
    searchable: columns.filter((c) => textual.has(c)),
    orderable: [...columns],
    identity: [],
    sensitive: [],
    allowCascade: false,
    shape: 'wrapped',
    rateLimit: DEFAULT_RATE_LIMIT,
    timeZone: DEFAULT_TIME_ZONE,
    serviceRole: false,
    booking: null,
    window: null,
    needsSession: false,
    pk: t.kind === 'table' ? [...pk] : [],
    keyFill: keyFill(t),
    addonKey: null,
  };
}

/** `<connection name>_`: the connection's name made one path-safe word. */
export function connectionPrefix(name: string): string {
  return name.trim().replace(/[^\p{L}\p{N}_-]+/gu, '_') + '_';
}
