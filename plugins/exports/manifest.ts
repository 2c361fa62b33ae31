import { definePlugin } from '../../kernel/api.js';
import { EXPORT_ERRORS } from './errors.js';
import { exportRoutes } from './routes.js';
import { runExport, type ExportPayload } from './run.js';
import { exportsServiceRef, EXPORT_JOB, EXPORTS_ADMIN, EXPORTS_RUN, ExportsService } from './service.js';
import { exportsMigrations } from './tables.js';
import { z } from 'zod';

const SWEEP_EVERY_MS = 10 * 60_000;
const live = new Set<{ timer: NodeJS.Timeout }>();

export default definePlugin<ExportsService>({
  name: 'exports',
  version: '1.0.0',
  description: 'Streams tables to CSV, JSON lines or XLSX files that expire.',
  requires: ['connections', 'schema'],
  permissions: [
    {
      name: EXPORTS_RUN,
      label: 'Export data',
      description: 'Export table rows to files (within the data.read grant) and download one’s own exports.',
      roles: ['editor', 'viewer'],
    },
    { name: EXPORTS_ADMIN, label: 'Manage all exports', description: 'See, download and cancel the exports of every user and key.' },
  ],
  migrations: exportsMigrations,
  errors: EXPORT_ERRORS,
  routes: exportRoutes,
  jobs: {
    [EXPORT_JOB]: {
      // Creators see their own export jobs; seeing or cancelling anyone's is for exports.admin.
      permission: EXPORTS_ADMIN,
      description: 'Writes one export file.',
      schema: z.strictObject({ exportId: z.string().min(1).max(64) }),
      handler: (ctx) => runExport(ctx as never, ctx.kernel.plugin(exportsServiceRef)),
    },
  },
  setup: (kernel) => {
    const service = new ExportsService(kernel);
    const sweep = () => void service.sweep().catch((err: Error) => kernel.log.warn({ err: { message: err.message } }, 'export sweep failed'));
    sweep();
    const handle = { timer: setInterval(sweep, SWEEP_EVERY_MS).unref() };
    live.add(handle);
    return service;
  },
  close: () => {
    for (const h of live) clearInterval(h.timer);
    live.clear();
  },
});

export type { ExportPayload };
