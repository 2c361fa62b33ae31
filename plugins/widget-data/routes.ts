import { route, type Kernel, type Principal, type RouteDefinition } from '../../kernel/api.js';
import { DATA_READ } from '../data/provides.js';
import { batchBody, batchResponse, queryBody, queryResponse } from './schemas.js';
import { widgetDataRef } from './service-ref.js';

const tags = ['Widget data'];
const who = (p: Principal | null) => p!;
const service = (kernel: Kernel) => kernel.plugin(widgetDataRef);

const ERRORS =
  "400 VALIDATION_FAILED (issues: unknown-column, op-type, timezone-invalid, timezone-unsupported, limit, …); 400 WIDGET_QUERY_REFUSED with the database's reason; " +
  '403 FORBIDDEN without data.read; 404 NOT_FOUND for a connection, table or page the caller cannot reach; 504 WIDGET_QUERY_TIMEOUT (params.timeoutMs).';

export const widgetDataRoutes: RouteDefinition[] = [
  route({
    method: 'POST',
    readsOnly: true,
    url: '/widget-data/query',
    summary: "One dashboard widget's number, groups or time series",
    description:
      'Computed by the database (GROUP BY, its own date truncation in the asked time zone), over the columns the caller may read (a secret column never; ' +
      'a personal one with a grant on the whole table); an unreadable column answers unknown-column. 10 s per widget. ' +
      ERRORS,
    tags,
    permission: DATA_READ,
    schema: { body: queryBody, response: { 200: queryResponse } },
    handler: async ({ kernel, principal, body }) => ({
      data: await service(kernel).queryParsed(who(principal), body.query, { fresh: body.fresh === true }),
    }),
  }),
  route({
    method: 'POST',
    readsOnly: true,
    url: '/widget-data/batch',
    summary: 'Several widgets in one request',
    description:
      'Up to 20 queries, at most 4 at once (per request and per connection), 15 s for the batch. Each answers on its own: ' +
      '{id, ok: true, result, meta} or {id, ok: false, error: {code, message, params?, issues?}}; one failure never fails the batch. ' +
      ERRORS,
    tags,
    permission: DATA_READ,
    schema: { body: batchBody, response: { 200: batchResponse } },
    handler: async ({ kernel, principal, body }) => ({
      data: { results: await service(kernel).batch(who(principal), body.queries, { fresh: body.fresh === true }) },
    }),
  }),
];
