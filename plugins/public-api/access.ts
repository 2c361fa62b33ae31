import type { FastifyRequest } from 'fastify';
import { AppError } from '../../kernel/api.js';
import { primaryKeyColumns, rowDialect, type AnyDb, type RowDialect, type SortKey } from '../../engine/rows/index.js';
import type { Column } from '../../engine/schema/model.js';
import type { EndpointDefinition, PublicMethod } from '../public-admin/provides.js';
import type { EffectiveTable } from '../schema/provides.js';
import { refNotFound } from './errors.js';
import { SESSION_HEADER } from './http/cors.js';
import type { PublicCaller } from './provides.js';
import { PUBLIC_LIMITS, type Charge, type Traffic } from './limits/policy.js';
import { defaultFilters, endpointForKey, scopeOf, type Scope } from './scope.js';
import type { PublicApi } from './service.js';
import { CustomerSessions, sessionFits, type CustomerSession } from './sessions.js';

/** A request the public gate let through (a handler's context is one), with who is calling. */
export interface PublicCall {
  request: FastifyRequest;
  caller: PublicCaller;
}

/** A request let through to one endpoint: who, what, which rows, and what it was charged. */
export interface Opened {
  caller: PublicCaller;
  endpoint: EndpointDefinition;
  table: EffectiveTable;
  session: CustomerSession | null;
  scope: Scope;
  charge: Charge;
  /** Columns a caller sees, in table order: exposed, never secret or sensitive. */
  readable: Column[];
  /** What lists of this endpoint may name, worked out once per endpoint and table. */
  lists: ListRules;
}

/** The endpoint's list rules, narrowed to the readable columns. */
export interface ListRules {
  readableNames: ReadonlySet<string>;
  filterable: ReadonlySet<string>;
  orderable: ReadonlySet<string>;
  searchable: readonly Column[];
  primaryKey: readonly Column[];
  /** Default order: newest primary key first. */
  newestFirst: readonly SortKey[];
}

export function visitorOf(caller: PublicCaller, session: CustomerSession | null): string {
  return session ? `s:${session.id}` : `a:${caller.address}`;
}

/**
 * What an endpoint's definition and table give every request alike: the readable columns and
 * the parsed default filters. Kept while both objects are the ones the caches hand out.
 */
const prepared = new WeakMap<EndpointDefinition, { table: EffectiveTable; readable: Column[]; defaults: Scope['defaults']; lists: ListRules }>();

function preparedOf(endpoint: EndpointDefinition, table: EffectiveTable) {
  const hit = prepared.get(endpoint);
  if (hit && hit.table === table) return hit;
  const readable = readableColumns(endpoint, table);
  const fresh = { table, readable, defaults: defaultFilters(endpoint, table), lists: listRules(endpoint, table, readable) };
  prepared.set(endpoint, fresh);
  return fresh;
}

function listRules(endpoint: EndpointDefinition, table: EffectiveTable, readable: Column[]): ListRules {
  const readableNames = new Set(readable.map((c) => c.name));
  const primaryKey = primaryKeyColumns(table);
  return {
    readableNames,
    filterable: new Set(endpoint.filterable.filter((c) => readableNames.has(c))),
    orderable: new Set(endpoint.orderable.filter((c) => readableNames.has(c))),
    searchable: readable.filter((c) => endpoint.searchable.includes(c.name)),
    primaryKey,
    newestFirst: primaryKey.map((column) => ({ column, desc: true })),
  };
}

function readableColumns(endpoint: EndpointDefinition, table: EffectiveTable): Column[] {
  const listed = new Set(endpoint.columns);
  const hidden = new Set(endpoint.sensitive);
  return table.columns.filter((c) => listed.has(c.name) && !hidden.has(c.name) && !c.display.secret && !(endpoint.virtual && c.display.personal));
}

/** Does this key reach this endpoint with one of these methods? The three "no" answers are one. */
function reaches(
  api: PublicApi,
  caller: PublicCaller,
  endpoint: EndpointDefinition | null,
  ref: string,
  method: PublicMethod | readonly PublicMethod[],
): endpoint is EndpointDefinition {
  if (!endpoint) return false;
  const granted = typeof method === 'string' ? grantedOne(api, caller, endpoint, ref, method) : method.some((m) => grantedOne(api, caller, endpoint, ref, m));
  return granted && (!endpoint.serviceRole || caller.key.kind === 'server');
}

function grantedOne(api: PublicApi, caller: PublicCaller, endpoint: EndpointDefinition, ref: string, method: PublicMethod): boolean {
  return endpoint.methods.includes(method) && api.admin.grants(caller.key, ref, method);
}

/**
 * Opens an endpoint for one request: session, limits, grant, session requirement, table. The
 * limits are charged before the grant is known and by ref, so an unknown endpoint and an
 * ungranted one behave alike there too; a refusal then takes back the whole-key part.
 */
export async function openEndpoint(
  api: PublicApi,
  call: PublicCall,
  ref: string,
  method: PublicMethod | readonly PublicMethod[],
  traffic: Traffic,
  rows = 1,
  claiming = false,
): Promise<Opened> {
  const { request: req, caller } = call;
  // Most requests carry no session: no need to wait for the store's answer to that.
  const session = req.headers[SESSION_HEADER] === undefined ? null : await api.sessions.fromRequest(req, caller.key);
  const endpoint = endpointForKey(await api.admin.endpoint(ref), caller.key);
  const charge = api.limits.charge({
    keyId: caller.key.id,
    kind: caller.key.kind,
    peak: caller.key.appKey?.peak ?? 1,
    visitor: visitorOf(caller, session),
    traffic,
    endpoint: { ref, limit: endpoint?.rateLimit ?? PUBLIC_LIMITS.defaultEndpoint },
    rows,
  });
  if (!reaches(api, caller, endpoint, ref, method)) {
    charge.refundKey();
    throw refNotFound();
  }
  // A claim is how a customer gets the session, so it cannot need one.
  if (endpoint.needsSession && !claiming && !(session && sessionFits(session, endpoint))) throw CustomerSessions.required();
  const table = await api.tables.get(endpoint.connectionId, endpoint.table);
  if (!table) {
    charge.refundKey();
    throw refNotFound();
  }
  const { readable, defaults, lists } = preparedOf(endpoint, table);
  return { caller, endpoint, table, session, scope: scopeOf(endpoint, table, session, defaults), charge, readable, lists };
}

/** Requests naming no endpoint (config, session end): the key's budgets only. */
export async function openKey(api: PublicApi, call: PublicCall, traffic: Traffic): Promise<{ caller: PublicCaller; session: CustomerSession | null }> {
  const { request: req, caller } = call;
  const session = await api.sessions.fromRequest(req, caller.key).catch(() => null);
  api.limits.charge({
    keyId: caller.key.id,
    kind: caller.key.kind,
    peak: caller.key.appKey?.peak ?? 1,
    visitor: visitorOf(caller, session),
    traffic,
    endpoint: null,
    rows: 1,
  });
  return { caller, session };
}

/**
 * Runs `fn` on the endpoint's database. A connection deleted since the endpoint was resolved is
 * one more "no such endpoint"; an unreachable database stays the connections plugin's 503.
 */
export function onSource<T>(api: PublicApi, opened: Opened, fn: (db: AnyDb, d: RowDialect) => Promise<T>): Promise<T> {
  return api.connections
    .withSource(opened.endpoint.connectionId, (db, info) => fn(db, rowDialect(info.dialect)))
    .catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND') {
        opened.charge.refundKey();
        throw refNotFound();
      }
      throw err;
    });
}
