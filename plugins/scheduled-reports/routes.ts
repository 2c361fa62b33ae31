import { z } from 'zod';
import { cursorField, dataOf, encodeCursor, type Kernel, listQuery, okSchema, reply, route } from '../../kernel/api.js';
import { createReportBody, patchReportBody, reportBody, reportIdParams, reportSchema } from './schemas.js';
import { REPORTS_READ, REPORTS_WRITE, reportsServiceRef, type ReportRow } from './service.js';

const service = (kernel: Kernel) => kernel.plugin(reportsServiceRef);
const tags = ['Scheduled reports'];

const auditView = (r: ReportRow) => ({
  name: r.name,
  source: JSON.parse(r.source) as unknown,
  format: r.format,
  cron: r.cron,
  timeZone: r.time_zone,
  recipients: JSON.parse(r.recipients) as unknown,
  enabled: Number(r.enabled) === 1,
});

const REFUSALS =
  '400 VALIDATION_FAILED with issues `cron-invalid` (five fields only), `timezone-invalid`, `too-frequent` (more than once an hour), `unknown-source` ' +
  '(a page, dashboard, shared view or table the caller cannot see is unknown alike), `format-source` (summary is for dashboards, csv/xlsx/jsonl for views and tables), `unknown-user`; ' +
  '403 FORBIDDEN (`params.permission: reports.external`) for an e-mail that is no user of the instance.';

export const reportRoutes = [
  route({
    method: 'GET',
    url: '/scheduled-reports',
    summary: 'Scheduled reports, newest first',
    description:
      'The caller’s own reports; holders of reports.admin see everyone’s. Run one now with `POST /jobs {kind: "scheduled-reports.run", payload: {reportId}}`; ' +
      'its history is `GET /jobs?kind=scheduled-reports.run`.',
    permission: REPORTS_READ,
    tags,
    schema: {
      query: listQuery.extend({ cursor: cursorField(z.string().min(1).max(64)) }),
      response: { 200: dataOf(z.strictObject({ reports: z.array(reportSchema), nextCursor: z.string().nullable() })) },
    },
    handler: async ({ kernel, query, principal }) => {
      const s = service(kernel);
      const page = await s.page(principal!, query.limit, query.cursor);
      return { data: { reports: await Promise.all(page.rows.map((r) => s.toReport(r))), nextCursor: page.next ? encodeCursor(page.next) : null } };
    },
  }),
  route({
    method: 'POST',
    url: '/scheduled-reports',
    summary: 'Schedule a report',
    description: `The caller owns it; each run uses the owner’s permissions as they are then. ${REFUSALS}`,
    permission: REPORTS_WRITE,
    tags,
    schema: { body: createReportBody, response: { 201: reportBody } },
    handler: async ({ kernel, body, principal, audit }) => {
      const s = service(kernel);
      const row = await s.create(principal!, body);
      audit({ action: 'scheduled-reports.create', target: { type: 'scheduled-report', id: row.id }, diff: auditView(row) });
      return reply(201, { data: { report: await s.toReport(row) } });
    },
  }),
  route({
    method: 'PATCH',
    url: '/scheduled-reports/:id',
    summary: 'Change a scheduled report',
    description: `Any field but the owner. Enabling a report its failures disabled starts the count over. 404 for another’s report without reports.admin. ${REFUSALS}`,
    permission: REPORTS_WRITE,
    tags,
    schema: { params: reportIdParams, body: patchReportBody, response: { 200: reportBody } },
    handler: async ({ kernel, params, body, principal, audit }) => {
      const s = service(kernel);
      const row = await s.patch(principal!, params.id, body);
      audit({ action: 'scheduled-reports.update', target: { type: 'scheduled-report', id: row.id }, diff: auditView(row) });
      return { data: { report: await s.toReport(row) } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/scheduled-reports/:id',
    summary: 'Delete a scheduled report',
    description: '404 for another’s report without reports.admin. Its past runs stay in GET /jobs.',
    permission: REPORTS_WRITE,
    tags,
    schema: { params: reportIdParams, response: { 200: okSchema } },
    handler: async ({ kernel, params, principal, audit }) => {
      const row = await service(kernel).remove(principal!, params.id);
      audit({ action: 'scheduled-reports.delete', target: { type: 'scheduled-report', id: row.id }, diff: auditView(row) });
      return { data: { ok: true as const } };
    },
  }),
];
