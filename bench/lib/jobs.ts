import type { HttpClient } from '../../test/helpers/client.js';

export interface JobView {
  state: string;
  startedAt: number | null;
  finishedAt: number | null;
  error: unknown;
}

/** Polls GET /jobs/{id} every `everyMs` until the job ends; throws unless it succeeded. `ms`: its run time. */
export async function jobDone(admin: HttpClient, jobId: string, everyMs = 50): Promise<JobView & { ms: number }> {
  for (;;) {
    const job = (await admin.get(`/api/v1/jobs/${jobId}`)).body.data.job as JobView;
    if (job.state !== 'queued' && job.state !== 'running') {
      if (job.state !== 'succeeded') throw new Error(`job ${jobId} ${job.state}: ${JSON.stringify(job.error)}`);
      return { ...job, ms: job.finishedAt! - job.startedAt! };
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
