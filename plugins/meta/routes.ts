import { z } from 'zod';
import {
  dataOf,
  JobError,
  jobSchema,
  RelocationFailed,
  reply,
  route,
  TargetConnectFailure,
  toJobView,
  type JobContext,
  type Kernel,
  type RelocationResult,
  type RelocationTarget,
} from '../../kernel/api.js';
import { targetFailed } from './errors.js';

export const META_READ = 'meta.read';
export const META_RELOCATE = 'meta.relocate';
export const RELOCATE_JOB = 'meta.relocate';
const SEAL = 'meta-relocate';
const tags = ['Meta store'];

const dialect = z.enum(['postgres', 'mysql', 'sqlite']);

const serverUrl = z
  .string()
  .min(1)
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return ['postgres:', 'postgresql:', 'mysql:', 'mariadb:'].includes(u.protocol) && u.hostname !== '' && u.pathname.length > 1;
    } catch {
      return false;
    }
  }, 'a postgres://, postgresql://, mysql:// or mariadb:// URL naming a database')
  .meta({ description: 'The target server; the credentials are sealed at rest and never answered.' });

export const relocateBody = z.union([
  z.strictObject({ url: serverUrl, dryRun: z.boolean().optional() }),
  z.strictObject({ target: z.literal('embedded'), dryRun: z.boolean().optional() }),
]);

const placementSchema = z.strictObject({ dialect, location: z.string() });

const relocationSchema = z
  .strictObject({
    jobId: z.string().nullable(),
    phase: z.enum(['checking', 'migrating', 'copying', 'freeze', 'done', 'failed']),
    dryRun: z.boolean(),
    to: placementSchema,
    tables: z.array(z.strictObject({ name: z.string(), rows: z.number().int(), copied: z.number().int() })),
    freezeMs: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .meta({ description: 'The last relocation this process ran (null: none since start): its phase and progress per table.' });

export const placementResponse = dataOf(
  z.strictObject({
    dialect,
    location: z.string(),
    embedded: z.boolean(),
    fromEnv: z.boolean().meta({ description: 'SVC_META_URL decided the placement: relocation is refused.' }),
    previous: z
      .strictObject({ dialect, location: z.string(), relocatedAt: z.number().int() })
      .nullable()
      .meta({ description: 'Where the store was before its last relocation (the old embedded file keeps its new name here).' }),
    relocation: relocationSchema.nullable(),
  }),
);

type Payload = { target: string; dryRun: boolean };

const toTarget = (kernel: Kernel, sealed: string): RelocationTarget =>
  sealed === 'embedded' ? { embedded: true } : { url: kernel.secrets(SEAL).decrypt(sealed) };

export const relocateJob = {
  permission: META_RELOCATE,
  description: 'Moves the meta store to another database (decisions MR1).',
  maxAttempts: 1,
  schema: z.strictObject({ target: z.string().min(1).max(8192), dryRun: z.boolean() }),
  handler: async (ctx: JobContext<Payload>): Promise<RelocationResult> => {
    const target = toTarget(ctx.kernel, ctx.payload.target);
    try {
      return await ctx.kernel.relocation.run(target, { dryRun: ctx.payload.dryRun, jobId: ctx.job.id, progress: (d, t, m) => ctx.progress(d, t, m) });
    } catch (err) {
      if (err instanceof TargetConnectFailure) throw new JobError('CONNECTION_FAILED', targetFailed(err, 'url' in target ? target.url : null).message, false);
      if (err instanceof RelocationFailed) throw new JobError('META_RELOCATE_FAILED', err.message.slice(0, 1000), false);
      throw err;
    }
  },
};

export const metaRoutes = [
  route({
    method: 'GET',
    url: '/meta/placement',
    summary: 'Which dialect holds the meta store, and where (credentials redacted)',
    description: 'With `previous` (where it was before its last relocation) and `relocation` (the progress of one under way here).',
    permission: META_READ,
    tags,
    schema: { response: { 200: placementResponse } },
    handler: ({ kernel }) => ({
      data: {
        ...kernel.meta.placement,
        embedded: kernel.meta.dialect === 'sqlite',
        fromEnv: kernel.config.metaUrl !== null,
        previous: kernel.relocation.previous,
        relocation: kernel.relocation.status(),
      },
    }),
  }),
  route({
    method: 'POST',
    url: '/meta/relocate',
    summary: 'Move the meta store to another database (or back to the embedded file)',
    description:
      'Checks the target (reachable, empty of our tables, not the current store, no other process on this store, no relocation under way), then runs the job `meta.relocate`: ' +
      'migrate the target, copy every table while serving, freeze writes briefly (they wait up to 10 s, then 503 META_UNAVAILABLE with Retry-After) to copy what changed and verify counts and checksums, ' +
      'record the placement in $SVC_DATA_DIR/meta-placement.json and switch. With `dryRun`, only checks and counts. Refused when SVC_META_URL was set at start.',
    permission: META_RELOCATE,
    tags,
    schema: { body: relocateBody, response: { 202: dataOf(z.strictObject({ job: jobSchema })) } },
    handler: async ({ kernel, body, principal, audit }) => {
      const url = 'url' in body ? body.url : null;
      const target: RelocationTarget = url ? { url } : { embedded: true };
      const dryRun = body.dryRun ?? false;
      try {
        await kernel.relocation.refuse(target, { connect: true });
      } catch (err) {
        if (err instanceof TargetConnectFailure) throw targetFailed(err, url);
        throw err;
      }
      const job = await kernel.jobs.enqueue(RELOCATE_JOB, { target: url ? kernel.secrets(SEAL).encrypt(url) : 'embedded', dryRun } satisfies Payload, {
        createdBy: principal?.userId ?? null,
        maxAttempts: 1,
      });
      audit({
        action: dryRun ? 'meta.relocate.dry-run' : 'meta.relocate',
        target: { type: 'meta', id: 'placement' },
        diff: { from: kernel.meta.placement, to: kernel.relocation.placementOf(target), jobId: job.id },
      });
      return reply(202, { data: { job: toJobView(job) } });
    },
  }),
];
