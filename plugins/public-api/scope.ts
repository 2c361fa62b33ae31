import { AppError } from '../../kernel/api.js';
import { parseWire } from '../../engine/rows/codec.js';
import { likePattern, type Filter } from '../../engine/rows/query-params.js';
import { columnOf, type PortableValue } from '../../engine/rows/types.js';
import type { Column } from '../../engine/schema/model.js';
import type { DefaultFilter, EndpointDefinition, PublicKey } from '../public-admin/provides.js';
import type { EffectiveTable } from '../schema/provides.js';
import type { CustomerSession } from './sessions.js';
import { sessionFits } from './sessions.js';

/**
 * A stored filter the schema no longer fits cannot be enforced, and dropping it would widen the
 * endpoint: the request fails instead (the control plane withdraws such endpoints too).
 */
function broken(what: string): AppError {
  return new AppError('INTERNAL', { cause: new Error(`public endpoint rule cannot be applied: ${what}`) });
}

function columnFor(table: EffectiveTable, name: string): Column {
  const c = columnOf(table, name);
  if (!c) throw broken(`column ${name} is missing`);
  return c;
}

function value(c: Column, v: unknown): PortableValue {
  try {
    return parseWire(c, v, `filter.${c.name}`);
  } catch {
    throw broken(`value of ${c.name} does not fit its type`);
  }
}

export function defaultFilter(table: EffectiveTable, f: DefaultFilter): Filter {
  const column = columnFor(table, f.column);
  const path = `default.${f.column}`;
  switch (f.op) {
    case 'null':
      return { column, op: 'null', isNull: f.value === true, path };
    case 'like':
      return { column, op: 'like', pattern: likePattern(String(f.value)), path };
    case 'in':
      return { column, op: 'in', values: (Array.isArray(f.value) ? f.value : [f.value]).map((v) => value(column, v)), path };
    default:
      return { column, op: f.op, value: value(column, f.value), path };
  }
}

/** `col = value` for each identity column the customer claimed with. */
export function identityFilters(table: EffectiveTable, identity: Record<string, unknown>): Filter[] {
  return Object.entries(identity).map(([name, v]) => {
    const column = columnFor(table, name);
    return { column, op: 'eq', value: value(column, v), path: `identity.${name}` };
  });
}

/**
 * The rows a request may reach: the endpoint's default filters and, on an endpoint that needs a
 * signed-in customer, the customer's own rows. Part of every statement, reads and writes alike.
 */
export interface Scope {
  /** The endpoint's default filters alone (capacity counts every booking the endpoint reaches). */
  defaults: Filter[];
  /** The defaults and, for a customer, their identity. */
  filters: Filter[];
  /** The claimed identity when the customer's own rows are all the request may reach. */
  identity: Record<string, unknown> | null;
}

export function defaultFilters(endpoint: EndpointDefinition, table: EffectiveTable): Filter[] {
  return endpoint.filters.map((f) => defaultFilter(table, f));
}

export function scopeOf(
  endpoint: EndpointDefinition,
  table: EffectiveTable,
  session: CustomerSession | null,
  defaults = defaultFilters(endpoint, table),
): Scope {
  const identity = endpoint.needsSession && session && sessionFits(session, endpoint) ? session.identity : null;
  return { defaults, filters: identity ? [...defaults, ...identityFilters(table, identity)] : defaults, identity };
}

/** Per endpoint object the caches hand out: its instance variants, by instance and rule. */
const variants = new WeakMap<EndpointDefinition, Map<string, EndpointDefinition>>();

/**
 * The endpoint as this key may use it. A named instance's app key (D28) reaches its app's
 * endpoints only through the rule its instance wrote for each: the instance's default filters
 * (its rows alone, reads and writes), defaults and booking rules. An app endpoint without a rule
 * for that key is not reached at all: falling back to the endpoint's own rules would hand the
 * key the default instance's rows.
 */
export function endpointForKey(endpoint: EndpointDefinition | null, key: PublicKey): EndpointDefinition | null {
  const app = key.appKey;
  if (!endpoint || !app?.instance || endpoint.addonKey !== app.addonKey) return endpoint;
  const rule = app.rules?.[endpoint.ref];
  if (!rule) return null;
  const tag = `${app.instance}\u0000${JSON.stringify(rule)}`;
  let byTag = variants.get(endpoint);
  if (!byTag) variants.set(endpoint, (byTag = new Map()));
  let v = byTag.get(tag);
  if (!v) {
    v = { ...endpoint, filters: rule.filters, defaults: rule.defaults, booking: rule.booking, timeZone: rule.timeZone };
    byTag.set(tag, v);
  }
  return v;
}
