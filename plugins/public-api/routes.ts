import { reply, route, type RouteContext, type RouteDefinition, type RouteSchema } from '../../kernel/api.js';
import { openKey } from './access.js';
import { availability } from './availability.js';
import { claim } from './claim.js';
import { publicConfig } from './config.js';
import { NEXT_CURSOR_HEADER } from './http/cors.js';
import { PUBLIC_API, publicKeyAudience, type PublicCaller } from './provides.js';
import { getRecord, listRecords } from './read.js';
import {
  availabilityData,
  availabilityQuery,
  batchBody,
  batchData,
  claimBody,
  claimData,
  configData,
  emptyData,
  listQuery,
  listResponse,
  publicErrors,
  recordParams,
  refParams,
  singleRow,
  valuesBody,
} from './schemas.js';
import { publicApiServiceRef } from './service.js';
import { batchRecords, createRecord, deleteRecord, updateRecord } from './write.js';

export const PLUGIN = PUBLIC_API;
const TAGS = ['public'];

const apiOf = (ctx: { kernel: RouteContext<RouteSchema>['kernel'] }) => ctx.kernel.plugin(publicApiServiceRef);

/** Public writes are audited without their values (guests' personal data stays out of the trail). */
function audited(ctx: RouteContext<RouteSchema, PublicCaller>, action: string, ref: string | null, id: string | null = null): void {
  ctx.audit({ action, target: ref ? { type: 'public-endpoint', id: ref } : null, diff: { keyId: ctx.caller.key.id, ...(id ? { recordId: id } : {}) } });
}

/**
 * The data plane under /public, of the `public-key` audience: each request carries a public key,
 * checked by the gate (http/gate.ts) before validation; the handler gets its caller.
 */
export const publicRoutes: RouteDefinition[] = [
  route({
    method: 'GET',
    url: '/public/config',
    summary: 'What the calling public key can reach',
    description: 'Endpoints the key holds with the methods it may use there, their columns, response shapes and the limits that apply.',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { response: { 200: configData, ...publicErrors } },
    handler: async (ctx) => ({ data: await publicConfig(apiOf(ctx), ctx) }),
  }),
  route({
    method: 'GET',
    url: '/public/records/:ref',
    summary: 'List rows of a public endpoint',
    description:
      'In the endpoint’s response shape: wrapped {data, page, cursor}, a bare array with X-Next-Cursor, or exactly one row. 20 rows by default, at most 200, newest primary key first.',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { params: refParams, query: listQuery, response: { 200: listResponse, ...publicErrors } },
    handler: async (ctx) => {
      const list = await listRecords(apiOf(ctx), ctx, ctx.params.ref, ctx.query as Record<string, unknown>);
      if (list.shape === 'single') return { data: list.rows[0]! };
      if (list.shape === 'array') return reply(200, list.rows, list.nextCursor ? { [NEXT_CURSOR_HEADER]: list.nextCursor } : {});
      return { data: list.rows, page: { limit: list.limit, count: list.rows.length }, cursor: list.nextCursor };
    },
  }),
  route({
    method: 'POST',
    url: '/public/records/:ref',
    summary: 'Create a row through a public endpoint',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { params: refParams, body: valuesBody, response: { 201: singleRow, ...publicErrors } },
    handler: async (ctx) => {
      const { row, id } = await createRecord(apiOf(ctx), ctx, ctx.params.ref, ctx.body.values);
      audited(ctx, 'public.records.create', ctx.params.ref, id);
      return { data: row };
    },
  }),
  route({
    method: 'POST',
    url: '/public/records/:ref/batch',
    summary: 'Insert or update 1 to 500 rows in one transaction',
    // 500 rows of a wide table pass the kernel's 1 MiB default.
    bodyLimit: 16 * 1024 * 1024,
    description: 'A row without its primary key is inserted; a row with its whole key updates that row (the key must also hold PATCH). All rows or none.',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { params: refParams, body: batchBody, response: { 200: batchData, ...publicErrors } },
    handler: async (ctx) => {
      const count = await batchRecords(apiOf(ctx), ctx, ctx.params.ref, ctx.body.rows);
      audited(ctx, 'public.records.batch', ctx.params.ref);
      return { data: { count } };
    },
  }),
  route({
    method: 'GET',
    url: '/public/records/:ref/:id',
    summary: 'One row of a public endpoint',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { params: recordParams, response: { 200: singleRow, ...publicErrors } },
    handler: async (ctx) => ({ data: await getRecord(apiOf(ctx), ctx, ctx.params.ref, ctx.params.id) }),
  }),
  route({
    method: 'PATCH',
    url: '/public/records/:ref/:id',
    summary: 'Change some writable columns of a row',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { params: recordParams, body: valuesBody, response: { 200: singleRow, ...publicErrors } },
    handler: async (ctx) => {
      const row = await updateRecord(apiOf(ctx), ctx, ctx.params.ref, ctx.params.id, ctx.body.values, false);
      audited(ctx, 'public.records.update', ctx.params.ref, ctx.params.id);
      return { data: row };
    },
  }),
  route({
    method: 'PUT',
    url: '/public/records/:ref/:id',
    summary: 'Replace every writable column of a row',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { params: recordParams, body: valuesBody, response: { 200: singleRow, ...publicErrors } },
    handler: async (ctx) => {
      const row = await updateRecord(apiOf(ctx), ctx, ctx.params.ref, ctx.params.id, ctx.body.values, true);
      audited(ctx, 'public.records.replace', ctx.params.ref, ctx.params.id);
      return { data: row };
    },
  }),
  route({
    method: 'DELETE',
    url: '/public/records/:ref/:id',
    summary: 'Delete a row through a public endpoint',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { params: recordParams, response: { 200: emptyData, ...publicErrors } },
    handler: async (ctx) => {
      await deleteRecord(apiOf(ctx), ctx, ctx.params.ref, ctx.params.id);
      audited(ctx, 'public.records.delete', ctx.params.ref, ctx.params.id);
      return { data: {} };
    },
  }),
  route({
    method: 'GET',
    url: '/public/availability/:ref',
    summary: 'Free and full booking slots of one venue day',
    description:
      'Times on the venue’s clock from opening to the last slot before closing; a time in the past or beyond the booking window is full. Never a row, a name or a count. With a browser key one address may ask one endpoint about at most 4 different party sizes within 10 minutes (429 PUBLIC_RATE_LIMITED, limit `party-sizes`, beyond): asking size after size would tell how many places are left.',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { params: refParams, query: availabilityQuery, response: { 200: availabilityData, ...publicErrors } },
    handler: async (ctx) => ({ data: await availability(apiOf(ctx), ctx, ctx.params.ref, ctx.query.date, ctx.query.party) }),
  }),
  route({
    method: 'POST',
    url: '/public/claim',
    summary: 'Claim a customer session with an endpoint’s identity columns',
    description: 'Send the session in X-Svc-Public-Session; it reaches only rows holding the same identity values.',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { body: claimBody, response: { 200: claimData, ...publicErrors } },
    handler: async (ctx) => {
      const data = await claim(apiOf(ctx), ctx, ctx.body.ref, ctx.body.values);
      audited(ctx, 'public.claim', ctx.body.ref);
      return { data };
    },
  }),
  route({
    method: 'DELETE',
    url: '/public/session',
    summary: 'End the customer session in X-Svc-Public-Session',
    tags: TAGS,
    audience: publicKeyAudience,
    schema: { response: { 200: emptyData, ...publicErrors } },
    handler: async (ctx) => {
      const api = apiOf(ctx);
      const { caller } = await openKey(api, ctx, 'write');
      await api.sessions.end(ctx.request, caller.key);
      audited(ctx, 'public.session.end', null);
      return { data: {} };
    },
  }),
];
