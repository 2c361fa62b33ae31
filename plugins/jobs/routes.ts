import { AppError, errorEnvelopeSchema, type Job, type Kernel, noBody, type Principal, reply, route, toJobView } from '../../kernel/api.js';
import { canSee } from './access.js';
import { listJobs } from './query.js';
import { enqueueBody, jobData, jobIdParams, jobListData, jobListQuery } from './schemas.js';

export const JOBS_READ = 'jobs.read';

/** The job if the caller may see it; 404 otherwise, so ids of others' jobs reveal nothing. */
async function visibleJob(kernel: Kernel, principal: Principal, id: string): Promise<Job> {
  const job = await kernel.jobs.get(id);
  if (!job || !canSee(principal, job, kernel.jobs.declared())) throw new AppError('NOT_FOUND');
  return job;
}

export const jobRoutes = [
  route({
    method: 'GET',
    url: '/jobs',
    summary: 'Jobs the caller may see, newest first',
    description:
      'D6 list (limit 1..500, default 50; keyset cursor). The caller sees the jobs it created and every job of a kind whose permission it holds. Filters: kind, state, subject (what the job works on, as its kind names it).',
    permission: JOBS_READ,
    schema: { query: jobListQuery, response: { 200: jobListData } },
    handler: async ({ kernel, principal, query }) => ({ data: await listJobs(kernel.db, principal!, kernel.jobs.declared(), query) }),
  }),
  route({
    method: 'POST',
    url: '/jobs',
    summary: 'Enqueue a job',
    description:
      "Queues a job of a declared kind; the caller needs that kind's permission (403 names it). An unknown kind answers 400 at body.kind, a payload the kind refuses 400 at body.payload…. Payloads are JSON of at most 60 000 bytes.",
    permission: JOBS_READ,
    schema: { body: enqueueBody, response: { 201: jobData, 400: errorEnvelopeSchema, 403: errorEnvelopeSchema } },
    handler: async ({ kernel, principal, body, audit }) => {
      const declared = kernel.jobs.declared().get(body.kind);
      if (!declared) throw new AppError('VALIDATION_FAILED', { issues: [{ path: 'body.kind', code: 'unknown_kind', message: `No job kind ${body.kind}.` }] });
      if (!principal!.permissions.has(declared.permission)) throw new AppError('FORBIDDEN', { params: { permission: declared.permission } });
      const payload = body.payload ?? null;
      try {
        const job = await kernel.jobs.enqueue(body.kind, payload, { createdBy: principal!.userId });
        audit({ action: 'jobs.enqueue', target: { type: 'job', id: job.id }, diff: { kind: job.kind } });
        return reply(201, { data: { job: toJobView(job) } });
      } catch (err) {
        // The queue names payload paths from the payload's root; the API names them from the body's.
        if (err instanceof AppError && err.code === 'VALIDATION_FAILED' && err.issues) {
          throw new AppError('VALIDATION_FAILED', { issues: err.issues.map((i) => ({ ...i, path: `body.${i.path}` })) });
        }
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    url: '/jobs/:id',
    summary: 'One job',
    permission: JOBS_READ,
    schema: { params: jobIdParams, response: { 200: jobData, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, principal, params }) => ({ data: { job: toJobView(await visibleJob(kernel, principal!, params.id)) } }),
  }),
  route({
    method: 'POST',
    url: '/jobs/:id/cancel',
    summary: 'Cancel a job',
    description:
      'A queued job is cancelled at once; a running one is asked to stop (its handler is aborted; on another replica within a third of the lease) and ends `cancelled`. Cancelling a cancelled job answers it unchanged; a succeeded or failed one answers 409.',
    permission: JOBS_READ,
    schema: { params: jobIdParams, body: noBody, response: { 200: jobData, 404: errorEnvelopeSchema, 409: errorEnvelopeSchema } },
    handler: async ({ kernel, principal, params, audit }) => {
      const before = await visibleJob(kernel, principal!, params.id);
      if (before.state === 'succeeded' || before.state === 'failed')
        throw new AppError('CONFLICT', { params: { reason: 'job-finished', state: before.state } });
      const job = (await kernel.jobs.cancel(before.id)) ?? before;
      audit({ action: 'jobs.cancel', target: { type: 'job', id: job.id }, diff: { kind: job.kind, state: job.state } });
      return { data: { job: toJobView(job) } };
    },
  }),
];
