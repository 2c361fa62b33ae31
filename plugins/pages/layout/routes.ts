import { z } from 'zod';
import { AppError, dataOf, errorEnvelopeSchema, route } from '../../../kernel/api.js';
import { requireKind, store, visiblePage } from '../found.js';
import { pageIdParams, pageSchema } from '../schemas.js';
import { checkGrid, checkQueries } from './check.js';
import { layoutBody, WIDGETS_MAX } from './schemas.js';

export const layoutRoutes = [
  route({
    method: 'PATCH',
    url: '/pages/:pageId/layout',
    summary: "Save a dashboard's shared layout",
    description:
      `Replaces the widgets (at most ${WIDGETS_MAX}) on the 12-column grid; the page answers with layout.version + 1. ` +
      '400 VALIDATION_FAILED: `not-a-dashboard` at params.pageId; `layout-bounds` and `layout-overlap` at body.widgets.N; ' +
      'each widget’s query checked as POST /widget-data/query checks it, issues at body.widgets.N.query…. ' +
      '409 CONFLICT `stale` (params.version: the stored one) when version is not the stored layout’s version: of two saves of the same version one wins. ' +
      '404 NOT_FOUND for a page the caller may not see.',
    permission: 'pages.write',
    schema: {
      params: pageIdParams,
      body: layoutBody,
      response: { 200: dataOf(z.strictObject({ page: pageSchema })), 404: errorEnvelopeSchema, 409: errorEnvelopeSchema },
    },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const page = await visiblePage(kernel, principal!, params.pageId);
      requireKind(page, ['dashboard'], 'not-a-dashboard', 'Only a dashboard has a layout of widgets.');
      const pages = store(kernel);
      const issues = [...checkGrid(body.widgets), ...(await checkQueries(principal!, body.widgets, pages.widgetQueryCheck))];
      if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
      const saved = await pages.setLayout(page.id, body.widgets, body.version);
      if (!saved) {
        const now = await pages.find(page.id);
        if (!now) throw new AppError('NOT_FOUND', { message: 'No such page.' });
        const version = typeof now.layout?.version === 'number' ? now.layout.version : 0;
        throw new AppError('CONFLICT', {
          message: 'The layout changed since this version was read; read the page again.',
          params: { reason: 'stale', version },
        });
      }
      audit({
        action: 'pages.layout.update',
        target: { type: 'page', id: page.id },
        diff: { version: { from: body.version, to: body.version + 1 }, widgets: body.widgets.map((w) => w.id) },
      });
      await pages.changed(saved, false);
      return { data: { page: saved } };
    },
  }),
];
