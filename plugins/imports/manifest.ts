import multipart from '@fastify/multipart';
import { z } from 'zod';
import { API_PREFIX } from '../../kernel/http/routes.js';
import { AppError } from '../../kernel/errors.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { IMPORT_ERRORS } from './errors.js';
import { importRoutes, UPLOAD_URL } from './routes.js';
import { runImport, type ImportPayload } from './run.js';
import { DEFAULT_MAX_UPLOAD_BYTES, IMPORT_JOB, IMPORTS_ADMIN, IMPORTS_RUN, ImportsService } from './service.js';
import { importsMigrations } from './tables.js';

const SWEEP_EVERY_MS = 10 * 60_000;
const live = new Set<NodeJS.Timeout>();
const MULTIPART = /^multipart\/form-data/i;

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
      handler: (ctx) => runImport(ctx as never, ctx.kernel.plugin<ImportsService>('imports')),
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
  /**
   * @fastify/multipart can only be registered on the application here (the kernel mounts plugin
   * routes on it, not in a scope of their own), so its parser would take multipart bodies for
   * every route; the hook keeps them to the upload route, and every other route answers 415 as
   * before (K1).
   */
  http: async (app) => {
    await app.register(multipart, { limits: { fileSize: DEFAULT_MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 20 } });
    const upload = API_PREFIX + UPLOAD_URL;
    app.addHook('preParsing', (req, _reply, payload, done) => {
      if (MULTIPART.test(req.headers['content-type'] ?? '') && req.routeOptions.url !== upload) done(new AppError('UNSUPPORTED_MEDIA_TYPE'));
      else done(null, payload);
    });
  },
  close: () => {
    for (const t of live) clearInterval(t);
    live.clear();
  },
});

export type { ImportPayload };
