import { z } from 'zod';
import { dataOf, errorEnvelopeSchema, route } from '../../../kernel/api.js';
import { store, visiblePage } from '../found.js';
import { pageIdParams, pageSchema } from '../schemas.js';
import { checkConfig } from './check.js';
import { configBody } from './schemas.js';

export const configRoutes = [
  route({
    method: 'PATCH',
    url: '/pages/:pageId/config',
    summary: "Replace a page's config (the kind's own settings)",
    description:
      'The body is the kind’s config, version 1: ListPageConfig (columns, sort, filters in the data API’s grammar, displayColumn, detailPage, searchable), ' +
      'RecordPageConfig for detail and form pages (fields with readOnly, defaults, afterSave), DashboardPageConfig (refreshSeconds ≥ 30, defaultRange). ' +
      'Checked against the table’s current effective schema as the caller reads it: 400 `unknown-column` for a column the table lacks or the caller cannot read ' +
      '(never "forbidden"), `unknown-page` for a detailPage/listPage that is no such page of the table, and the data API’s refusals for sort and filters. ' +
      '404 NOT_FOUND for a page the caller may not see.',
    permission: 'pages.write',
    schema: { params: pageIdParams, body: configBody, response: { 200: dataOf(z.strictObject({ page: pageSchema })), 404: errorEnvelopeSchema } },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const page = await visiblePage(kernel, principal!, params.pageId);
      const pages = store(kernel);
      const config = await checkConfig(pages.tables, principal!, page, body, 'body', (ref) => pages.findRef(ref));
      const saved = (await pages.setConfig(page.id, config)) ?? page;
      audit({ action: 'pages.config.update', target: { type: 'page', id: page.id }, diff: { from: page.config, to: config } });
      await pages.changed(saved, false);
      return { data: { page: saved } };
    },
  }),
];
