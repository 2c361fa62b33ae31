/**
 * Run as its own process by the job kill test: starts an instance on SVC_DATA_DIR / SVC_META_URL
 * with a short lease, enqueues two slow counting jobs (one that may be retried, one that may
 * not) and prints their ids once both are running and have reported progress. The test then
 * kills this process with SIGKILL.
 */
import { createApp } from '../../kernel/app.js';
import { loadConfig } from '../../kernel/config.js';
import { firstPartyPlugins } from '../../plugins/index.js';
import { jobTestPlugin } from './job-plugin.js';

const config = loadConfig({ ...process.env, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
const app = await createApp({ config, plugins: [...firstPartyPlugins, jobTestPlugin()], jobs: { workers: 2, pollMs: 50, leaseMs: 1000 } });
await app.listen();
const n = Number(process.env.COUNT_TO ?? 20);
const retried = await app.kernel.jobs.enqueue('jobtest.count', { n, delayMs: 100 }, { maxAttempts: 3 });
const once = await app.kernel.jobs.enqueue('jobtest.count', { n, delayMs: 100 }, { maxAttempts: 1 });
for (;;) {
  const jobs = await Promise.all([retried.id, once.id].map((id) => app.kernel.jobs.get(id)));
  if (jobs.every((j) => j?.state === 'running' && (j.progress ?? 0) > 0)) break;
  await new Promise((r) => setTimeout(r, 20));
}
process.stdout.write(`${JSON.stringify({ retried: retried.id, once: once.id })}\n`);
await new Promise(() => undefined);
