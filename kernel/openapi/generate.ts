import { z } from 'zod';
import { errorEnvelopeSchema } from '../contract/shapes.js';
import { isRawResponse, noBody, type RouteDefinition } from '../contract/route.js';
import { API_PREFIX } from '../http/routes.js';
import type { LoadedRoute } from '../kernel-services.js';
import { SESSION_COOKIE } from '../http/authenticate.js';
import { PRODUCT_NAME, VERSION } from '../version.js';

type Json = Record<string, unknown>;

const STATUS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted',
  '204': 'No content',
  '400': 'The request is not valid (VALIDATION_FAILED, MALFORMED_JSON)',
  '401': 'Not signed in, or the session or key is no longer valid',
  '403': 'The caller lacks the permission, or the origin is refused',
  '409': 'Conflict',
  '413': 'Payload too large',
  '415': 'Unsupported media type',
  '429': 'Rate limited',
  '500': 'Internal error',
  '503': 'Unavailable',
};

/**
 * Converts a zod schema to a JSON Schema (2020-12, as OpenAPI 3.1 uses) and hoists named
 * schemas (`.meta({ id })`) into components, so User and Error appear once.
 */
function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, Json>): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete json.$schema;
  const defs = json.$defs as Record<string, Json> | undefined;
  delete json.$defs;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') {
      const out: Json = {};
      for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : rewrite(v);
      return out;
    }
    return value;
  };
  for (const [id, def] of Object.entries(defs ?? {})) components[id] = rewrite(def) as Json;
  const meta = z.globalRegistry.get(schema) as { id?: string } | undefined;
  if (meta?.id) {
    // zod already hoists a named root into $defs and answers a $ref to it.
    if (!json.$ref) components[meta.id] = rewrite(json) as Json;
    return { $ref: `#/components/schemas/${meta.id}` };
  }
  return rewrite(json) as Json;
}

function openApiPath(url: string): string {
  return API_PREFIX + url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{*}');
}

function operationId(def: RouteDefinition): string {
  const words = def.url
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? `by-${seg.slice(1)}` : seg === '*' ? 'by-path' : seg))
    .join('-')
    .split(/[-_.]/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return def.method.toLowerCase() + words.join('');
}

function parameters(def: RouteDefinition, components: Record<string, Json>): Json[] {
  const out: Json[] = [];
  for (const [part, location] of [
    ['params', 'path'],
    ['query', 'query'],
  ] as const) {
    const schema = def.schema[part];
    if (!(schema instanceof z.ZodObject)) continue;
    const json = toSchema(schema, 'input', components) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, prop] of Object.entries(json.properties ?? {})) {
      const description = (prop as { description?: string }).description;
      out.push({
        name,
        in: location,
        required: location === 'path' || (json.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: prop,
      });
    }
  }
  return out;
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
}

export function openApiInfo(): OpenApiInfo {
  return { title: `${PRODUCT_NAME} REST API`, version: VERSION, description: 'The whole HTTP interface under /api/v1, generated from the route tree.' };
}

/** The OpenAPI 3.1 document of the loaded route tree, deterministic for a given tree. */
export function generateOpenApi(routes: readonly LoadedRoute[], info: OpenApiInfo): Json {
  const components: Record<string, Json> = {};
  const errorRef = toSchema(errorEnvelopeSchema, 'output', components);
  const errorResponse = (status: string): Json => ({ description: STATUS_TEXT[status] ?? 'Error', content: { 'application/json': { schema: errorRef } } });
  const paths: Record<string, Record<string, Json>> = {};
  const sorted = [...routes].sort((a, b) => a.definition.url.localeCompare(b.definition.url) || a.definition.method.localeCompare(b.definition.method));
  for (const { plugin, definition: def } of sorted) {
    const responses: Record<string, Json> = {};
    for (const [status, schema] of Object.entries(def.schema.response)) {
      const declaredSchema = isRawResponse(schema) ? null : schema;
      if (isRawResponse(schema)) {
        responses[status] = { description: schema.description, content: { [schema.contentType]: { schema: { type: 'string' } } } };
      } else if (/^[45]/.test(status) && declaredSchema === errorEnvelopeSchema) {
        responses[status] = errorResponse(status);
      } else {
        responses[status] = {
          description: declaredSchema?.description ?? STATUS_TEXT[status] ?? 'Response',
          content: { 'application/json': { schema: toSchema(schema, 'output', components) } },
        };
      }
    }
    const takesInput = def.schema.params || def.schema.query || (def.schema.body && def.schema.body !== noBody);
    if (takesInput && !responses['400']) responses['400'] = errorResponse('400');
    // Only permission routes are the kernel's to authenticate; public and audience routes declare their own refusals.
    const open = def.permission === undefined;
    if (!open) {
      responses['401'] ??= errorResponse('401');
      responses['403'] ??= errorResponse('403');
    }
    responses['500'] ??= errorResponse('500');
    const op: Json = {
      operationId: operationId(def),
      summary: def.summary,
      ...(def.description ? { description: def.description } : {}),
      tags: def.tags ?? [plugin],
      security: open ? [] : [{ session: [] }, { apiKey: [] }],
      ...(open ? {} : { 'x-permission': def.permission }),
    };
    const params = parameters(def, components);
    if (params.length) op.parameters = params;
    if (def.schema.body && def.schema.body !== noBody) {
      op.requestBody = { required: true, content: { 'application/json': { schema: toSchema(def.schema.body, 'input', components) } } };
    }
    op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    const path = openApiPath(def.url);
    paths[path] ??= {};
    paths[path]![def.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info,
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'Signed session cookie set by sign-in.' },
        apiKey: { type: 'http', scheme: 'bearer', description: 'A role-bound API key (prefix adm_sk_).' },
      },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
    paths,
  };
}
