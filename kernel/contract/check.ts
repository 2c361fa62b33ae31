import { z } from 'zod';
import type { RouteAudience } from './audience.js';
import { isRawResponse, type RouteDefinition } from './route.js';

/** Thrown at start when a route breaks the contract; the server refuses to start. */
export class RouteContractError extends Error {
  override name = 'RouteContractError';
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The path parameters of a fastify URL; a trailing `/*` (the rest of the path) is the parameter `*`. */
export function urlParams(url: string): string[] {
  const names = [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  return url.endsWith('/*') ? [...names, '*'] : names;
}

function objectKeys(schema: z.ZodType): string[] | null {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : null;
}

/** The audiences the loaded plugins provide (by name), and what a plugin may use. */
export interface AudienceCatalog {
  provided: ReadonlyMap<string, RouteAudience>;
  /** The plugins a plugin requires: an audience route's plugin is its provider or requires it. */
  requires(plugin: string): readonly string[];
}

/**
 * Every route declares a request schema for each part it reads, a schema for every response
 * status, and either a permission the catalog knows, an explicit `public: true`, or an
 * audience a plugin it requires provides (K47).
 */
export function checkRoute(plugin: string, def: RouteDefinition, knownPermission: (name: string) => boolean, audiences?: AudienceCatalog): void {
  const where = `route ${def.method} ${def.url} of plugin ${plugin}`;
  const fail = (why: string): never => {
    throw new RouteContractError(`${where}: ${why}`);
  };
  const hasPermission = typeof def.permission === 'string' && def.permission.length > 0;
  const isPublic = def.public === true;
  const audience = def.audience;
  if (audience !== undefined) {
    if (hasPermission || isPublic) fail('declares an audience and also a permission or public: true');
    if (audiences) checkAudience(plugin, def.url, audience, audiences, fail);
  } else {
    if (!hasPermission && !isPublic) fail('declares neither a permission nor public: true');
    if (hasPermission && isPublic) fail('declares both a permission and public: true');
    const owner = audiences && [...audiences.provided.values()].find((a) => def.url.startsWith(a.under));
    // An audience's URL space is gated as a whole: a route there without its gate would be open.
    if (owner) fail(`is under ${owner.under}, which audience ${owner.name} owns, but declares no audience`);
  }
  if (hasPermission && !knownPermission(def.permission!)) fail(`uses permission ${def.permission}, which no loaded plugin declares`);
  if (!def.schema || typeof def.schema !== 'object') fail('has no schema');
  const responses = Object.entries(def.schema.response ?? {});
  if (responses.length === 0) fail('declares no response schema');
  if (!responses.some(([status]) => /^2\d\d$/.test(status))) fail('declares no 2xx response');
  for (const [status, schema] of responses) {
    if (!/^[1-5]\d\d$/.test(status)) fail(`declares response status ${status}, which is not an HTTP status`);
    if (!(schema instanceof z.ZodType) && !isRawResponse(schema)) fail(`response ${status} is not a zod schema`);
  }
  const params = urlParams(def.url);
  if (params.length > 0) {
    if (!def.schema.params) fail(`has path parameters (${params.join(', ')}) but no params schema`);
    const keys = objectKeys(def.schema.params!);
    if (!keys) fail('params schema must be a z.object');
    const missing = params.filter((p) => !keys!.includes(p));
    const extra = keys!.filter((k) => !params.includes(k));
    if (missing.length || extra.length) fail(`params schema keys (${keys!.join(', ')}) do not match the path parameters (${params.join(', ')})`);
  } else if (def.schema.params) {
    fail('declares a params schema but the path has no parameters');
  }
  if (BODY_METHODS.has(def.method) && !def.schema.body) fail(`is ${def.method} but declares no body schema (use noBody when it takes none)`);
  if (!BODY_METHODS.has(def.method) && def.schema.body) fail(`is ${def.method}, which takes no body, but declares a body schema`);
  for (const part of ['params', 'query', 'body'] as const) {
    const s = def.schema[part];
    if (s !== undefined && !(s instanceof z.ZodType)) fail(`${part} schema is not a zod schema`);
  }
  if (def.schema.query && !objectKeys(def.schema.query)) fail('query schema must be a z.object');
  if (typeof def.handler !== 'function') fail('has no handler');
}

function checkAudience(plugin: string, url: string, audience: RouteAudience, catalog: AudienceCatalog, fail: (why: string) => never): void {
  const provided = catalog.provided.get(audience.name);
  if (!provided || provided.provider !== audience.provider) fail(`declares audience ${audience.name}, which no loaded plugin provides`);
  if (plugin !== provided!.provider && !catalog.requires(plugin).includes(provided!.provider))
    fail(`declares audience ${audience.name} of plugin ${provided!.provider} without requiring it`);
  if (!url.startsWith(provided!.under)) fail(`declares audience ${audience.name}, whose routes live under ${provided!.under}`);
}
