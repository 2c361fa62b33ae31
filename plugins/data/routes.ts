import type { ServerResponse } from 'node:http';
import { type Kernel, noBody, type Principal, route, type RouteDefinition } from '../../kernel/api.js';
import { DATA_READ, DATA_WRITE } from './access.js';
import {
  bulkBody,
  createBody,
  deleteResponse,
  listQuery,
  listResponse,
  patchBody,
  recordParams,
  referencesResponse,
  resultsResponse,
  rowResponse,
  tableParams,
  undoParams,
  writeResponse,
} from './schemas.js';
import { dataServiceRef } from './service.js';

const data = (kernel: Kernel) => kernel.plugin(dataServiceRef);
// Every route here has a permission, so the kernel always sets the principal.
const who = (p: Principal | null) => p!;
const tags = ['Data'];

/** Aborts when the connection closes before the answer is written: the client cancelled (a dashboard's Cancel, a page left). */
function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

export const dataRoutes: RouteDefinition[] = [
  // First: a static segment, listed before the /data/:connectionId/:table pattern it also fits.
  route({
    method: 'POST',
    url: '/data/undo/:token',
    summary: 'Undo a write',
    description:
      'Within 10 minutes of the write, by its author or an admin. 409 CONFLICT when a row changed since; 409 UNDO_EXPIRED, 409 UNDO_ALREADY_USED. Answers a token that undoes the undo.',
    tags,
    permission: DATA_WRITE,
    schema: { params: undoParams, body: noBody, response: { 200: resultsResponse } },
    handler: async ({ kernel, principal, params, audit }) => {
      const out = await data(kernel).undoWrite(who(principal), params.token, audit);
      return { data: { results: out.results, undoToken: out.undoToken } };
    },
  }),
  route({
    method: 'GET',
    url: '/data/:connectionId/:table',
    summary: 'Rows of a table: filters, sort, keyset pages and a count',
    description:
      'filter[col][op]=value (eq, ne, lt, lte, gt, gte, in, like, null), sort=-col,col2, fields, search, limit, cursor. ' +
      '`total` is exact when `totalExact`, else the planner estimate. A filter or sort on a column you may not read answers 400 naming the parameter.',
    tags,
    permission: DATA_READ,
    schema: { params: tableParams, query: listQuery, response: { 200: listResponse } },
    handler: async ({ kernel, principal, params, query, reply }) => ({
      data: await data(kernel).list(who(principal), params.connectionId, params.table, query, clientGone(reply.raw)),
    }),
  }),
  route({
    method: 'POST',
    url: '/data/:connectionId/:table',
    summary: 'Create a row',
    description: 'Answers the row as stored (defaults and generated columns filled in) and an undo token.',
    tags,
    permission: DATA_WRITE,
    schema: { params: tableParams, body: createBody, response: { 201: writeResponse } },
    handler: async ({ kernel, principal, params, body, audit }) => {
      const out = await data(kernel).write(who(principal), params.connectionId, params.table, 'create', [{ op: 'create', values: body.values }], audit);
      const r = out.results[0]!;
      return { data: { row: r.row!, recordId: r.recordId, undoToken: out.undoToken } };
    },
  }),
  route({
    method: 'POST',
    url: '/data/:connectionId/:table/bulk',
    summary: 'Create, update and delete up to 500 rows in one transaction',
    description:
      'All operations are applied or none is; a refusal names the operation (`params.index`, issue paths body.operations.N). One undo token reverts the batch.',
    tags,
    permission: DATA_WRITE,
    schema: { params: tableParams, body: bulkBody, response: { 200: resultsResponse } },
    handler: async ({ kernel, principal, params, body, audit }) => ({
      data: await data(kernel).write(who(principal), params.connectionId, params.table, 'bulk', body.operations, audit),
    }),
  }),
  route({
    method: 'GET',
    url: '/data/:connectionId/:table/:recordId/references',
    summary: 'Rows of other tables that point at this row',
    description: 'One entry per inbound foreign key you may read: the count and the first few record ids.',
    tags,
    permission: DATA_READ,
    schema: { params: recordParams, response: { 200: referencesResponse } },
    handler: async ({ kernel, principal, params }) => ({
      data: { references: await data(kernel).references(who(principal), params.connectionId, params.table, params.recordId) },
    }),
  }),
  route({
    method: 'GET',
    url: '/data/:connectionId/:table/:recordId',
    summary: 'One row',
    tags,
    permission: DATA_READ,
    schema: { params: recordParams, response: { 200: rowResponse } },
    handler: async ({ kernel, principal, params }) => ({ data: await data(kernel).get(who(principal), params.connectionId, params.table, params.recordId) }),
  }),
  route({
    method: 'PATCH',
    url: '/data/:connectionId/:table/:recordId',
    summary: 'Change some columns of a row',
    tags,
    permission: DATA_WRITE,
    schema: { params: recordParams, body: patchBody, response: { 200: writeResponse } },
    handler: async ({ kernel, principal, params, body, audit }) => {
      const out = await data(kernel).write(
        who(principal),
        params.connectionId,
        params.table,
        'update',
        [{ op: 'update', recordId: params.recordId, values: body.values }],
        audit,
      );
      const r = out.results[0]!;
      return { data: { row: r.row!, recordId: r.recordId, undoToken: out.undoToken } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/data/:connectionId/:table/:recordId',
    summary: 'Delete a row',
    tags,
    permission: DATA_WRITE,
    schema: { params: recordParams, response: { 200: deleteResponse } },
    handler: async ({ kernel, principal, params, audit }) => {
      const out = await data(kernel).write(who(principal), params.connectionId, params.table, 'delete', [{ op: 'delete', recordId: params.recordId }], audit);
      return { data: { recordId: out.results[0]!.recordId, undoToken: out.undoToken } };
    },
  }),
];
