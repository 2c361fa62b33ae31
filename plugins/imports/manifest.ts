import { z } from 'zod';
import { definePlugin } from '../../kernel/api.js';
import { IMPORT_ERRORS } from './errors.js';
import { importRoutes } from './routes.js';
import { runImport, type ImportPayload } from './run.js';
import { importsServiceRef, IMPORT_JOB, IMPORTS_ADMIN, IMPORTS_RUN, ImportsService } from './service.js';
import { importsMigrations } from './tables.js';

const SWEEP_EVERY_MS = 10 * 60_000;
const live = new Set<NodeJS.Timeout>();

export default definePlugin<ImportsService>({
  name: 'imports',
  version: '1.0.0',
  description: 'Imports CSV, JSON and XLSX files into tables: column mapping, dry run, upsert, error report.',
  requires: ['connections', 'schema'],
  permissions: [
    { name: IMPORTS_RUN, label: 'Import data', description: 'Upload files and import them into tables (within the data.write grant).', roles: ['editor'] },
    { name: IMPORTS_ADMIN, label: 'Manage all imports', description: 'See the imports of every user and key, their error reports, and cancel them.' },
  ],
  migrations: importsMigrations,
  errors: IMPORT_ERRORS,
  routes: importRoutes,
  jobs: {
    [IMPORT_JOB]: {
      permission: IMPORTS_ADMIN,
      description: 'Imports one uploaded file into a table.',
      schema: z.strictObject({ importId: z.string().min(1).max(64) }),
      handler: (ctx) => runImport(ctx as never, ctx.kernel.plugin(importsServiceRef)),
    },
  },
  setup: (kernel) => {
    const service = new ImportsService(kernel);
    service.ensureDirs();
    const sweep = () => void service.sweep().catch((err: Error) => kernel.log.warn({ err: { message: err.message } }, 'import sweep failed'));
    sweep();
    live.add(setInterval(sweep, SWEEP_EVERY_MS).unref());
    return service;
  },
  close: () => {
    for (const t of live) clearInterval(t);
    live.clear();
  },
});

export type { ImportPayload };
