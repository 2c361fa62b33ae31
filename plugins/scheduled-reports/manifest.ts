import { z } from 'zod';
import { definePlugin, type JobContext } from '../../kernel/api.js';
import { connectionsRef } from '../connections/provides.js';
import { pagesRef } from '../pages/provides.js';
import { reportRoutes } from './routes.js';
import { runReport, type RunPayload } from './run.js';
import {
  REPORT_FAILED_NOTIFICATION,
  REPORT_JOB,
  REPORT_SCHEDULE_OWNER,
  REPORTS_ADMIN,
  REPORTS_EXTERNAL,
  REPORTS_READ,
  REPORTS_WRITE,
  ReportsService,
  reportsServiceRef,
} from './service.js';
import { reportMigrations, reportsDb } from './tables.js';

export default definePlugin<ReportsService>({
  name: 'scheduled-reports',
  version: '1.0.0',
  description: 'Exports of a view or a table, or a dashboard’s summary, mailed on a schedule (issue 28 §4).',
  requires: ['pages', 'exports', 'connections', 'schema', 'widget-data'],
  permissions: [
    { name: REPORTS_READ, label: 'See scheduled reports', description: 'List one’s own scheduled reports.', roles: ['editor', 'viewer'] },
    {
      name: REPORTS_WRITE,
      label: 'Schedule reports',
      description: 'Create, change, run and delete one’s own scheduled reports (mailed with one’s own permissions).',
      roles: ['editor'],
    },
    { name: REPORTS_ADMIN, label: 'Manage all scheduled reports', description: 'See, change, run and delete everyone’s scheduled reports.' },
    { name: REPORTS_EXTERNAL, label: 'Mail reports outside', description: 'Send scheduled reports to e-mail addresses that are no user of the instance.' },
  ],
  migrations: reportMigrations,
  errors: {
    REPORT_FORBIDDEN: {
      status: 403,
      message: 'The report’s owner may no longer do what the report needs (suspended, or a permission or grant withdrawn); the run failed.',
    },
  },
  routes: reportRoutes,
  jobs: {
    [REPORT_JOB]: {
      // Owners run their own (run now) and see their runs (they are each job's creator); reports.admin sees all.
      permission: REPORTS_WRITE,
      description: `Makes one scheduled report and mails it (notification kind ${REPORT_FAILED_NOTIFICATION} on failure).`,
      maxAttempts: 3,
      schema: z.strictObject({ reportId: z.string().min(1).max(64), dueAt: z.number().int().optional() }),
      // A report's history is GET /jobs?kind=scheduled-reports.run&subject=<id> (J3).
      subject: (payload) => (payload as RunPayload).reportId,
      handler: (ctx) => runReport(ctx as JobContext<RunPayload>, ctx.kernel.plugin(reportsServiceRef)),
    },
  },
  setup: (kernel) => {
    const service = new ReportsService(kernel);
    // The scheduler stops with the job runner when the instance closes.
    kernel.schedules.register({
      kind: REPORT_SCHEDULE_OWNER,
      list: () => service.scheduledItems(),
      job: (item, dueAt) => service.scheduledJob(item, dueAt),
    });
    kernel.plugin(pagesRef).addDependent({ inUse: (pageId) => service.inUse(pageId) });
    // Rows about a connection go with it (docs/architecture.md): its table-source reports.
    kernel.plugin(connectionsRef).onRemove(async (id, trx) => ({ scheduledReports: await service.removeConnection(id, reportsDb(trx)) }));
    return service;
  },
});
