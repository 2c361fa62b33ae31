import { z } from 'zod';
import { AppError, dataOf, errorEnvelopeSchema, type Kernel, okSchema, type Principal, reply, route } from '../../../kernel/api.js';
import { store } from '../found.js';
import { pageIdParams } from '../schemas.js';
import type { Page } from '../provides.js';
import { VIEWS_PER_PAGE } from './store.js';
import { viewIdParams, viewName, viewQuerySchema, viewSchema } from './schemas.js';

/** A table page the caller sees; 400 `not-a-table-page` for a dashboard (or a custom page). */
const tablePage = (kernel: Kernel, principal: Principal, pageId: string): Promise<Page> => store(kernel).sharedViews.tablePage(principal, pageId);

const notFound = () => new AppError('NOT_FOUND', { message: 'No such view of this page.' });
const viewAnswer = dataOf(z.strictObject({ view: viewSchema }));

export const viewRoutes = [
  route({
    method: 'GET',
    url: '/pages/:pageId/views',
    summary: "A table page's shared views",
    description: '404 NOT_FOUND for a page the caller may not see; 400 `not-a-table-page` for a dashboard. Ordered by name.',
    permission: 'pages.read',
    schema: { params: pageIdParams, response: { 200: dataOf(z.strictObject({ views: z.array(viewSchema) })), 404: errorEnvelopeSchema } },
    handler: async ({ kernel, params, principal }) => {
      const page = await tablePage(kernel, principal!, params.pageId);
      return { data: { views: await store(kernel).views.list(page.id) } };
    },
  }),
  route({
    method: 'POST',
    url: '/pages/:pageId/views',
    summary: 'Save a shared view of a table page',
    description:
      '`query` is what GET /data/{conn}/{table} takes, checked with the data API’s own parser against the table as the caller reads it: ' +
      'issues at body.query… (`unknown-column` for a column the table lacks or the caller cannot read). ' +
      `409 CONFLICT \`name-taken\` (names compare case-insensitively), \`too-many-views\` past ${VIEWS_PER_PAGE}. ` +
      'isDefault makes it the page’s one default view (the previous default is cleared in the same transaction).',
    permission: 'pages.write',
    schema: {
      params: pageIdParams,
      body: z.strictObject({ name: viewName, query: viewQuerySchema, isDefault: z.boolean().optional() }),
      response: { 201: viewAnswer, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema },
    },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const page = await tablePage(kernel, principal!, params.pageId);
      const view = await store(kernel).sharedViews.create(principal!, page, { name: body.name, query: body.query, isDefault: body.isDefault ?? false });
      audit({ action: 'pages.view.create', target: { type: 'page', id: page.id }, diff: { viewId: view.id, name: view.name, isDefault: view.isDefault } });
      await store(kernel).changed(page, false);
      return reply(201, { data: { view } });
    },
  }),
  route({
    method: 'PATCH',
    url: '/pages/:pageId/views/:viewId',
    summary: 'Rename a shared view, change its query, or make it the default',
    description: 'As POST; 404 NOT_FOUND for an unknown view. isDefault: false leaves the page without a default view.',
    permission: 'pages.write',
    schema: {
      params: viewIdParams,
      body: z
        .strictObject({ name: viewName.optional(), query: viewQuerySchema.optional(), isDefault: z.boolean().optional() })
        .refine((b) => Object.keys(b).length > 0, { message: 'Name at least one of name, query, isDefault.' }),
      response: { 200: viewAnswer, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema },
    },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const page = await tablePage(kernel, principal!, params.pageId);
      const views = store(kernel).views;
      const before = await views.find(page.id, params.viewId);
      if (!before) throw notFound();
      if (body.query) await store(kernel).sharedViews.checkQuery(principal!, page, body.query, 'body.query');
      const view = await views.update(page.id, before.id, body);
      if (!view) throw notFound();
      audit({
        action: 'pages.view.update',
        target: { type: 'page', id: page.id },
        diff: {
          viewId: view.id,
          name: { from: before.name, to: view.name },
          isDefault: { from: before.isDefault, to: view.isDefault },
          query: body.query !== undefined,
        },
      });
      await store(kernel).changed(page, false);
      return { data: { view } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/pages/:pageId/views/:viewId',
    summary: 'Delete a shared view',
    description: '404 NOT_FOUND for an unknown view or a page the caller may not see.',
    permission: 'pages.write',
    schema: { params: viewIdParams, response: { 200: okSchema, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, params, principal, audit }) => {
      const page = await tablePage(kernel, principal!, params.pageId);
      const view = await store(kernel).views.find(page.id, params.viewId);
      if (!view || !(await store(kernel).views.remove(page.id, view.id))) throw notFound();
      audit({ action: 'pages.view.delete', target: { type: 'page', id: page.id }, diff: { viewId: view.id, name: view.name } });
      await store(kernel).changed(page, false);
      return { data: { ok: true as const } };
    },
  }),
];
