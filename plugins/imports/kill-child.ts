/**
 * The child process of the kill test (kill.test.ts): starts an instance on an existing data dir
 * (and its SQLite meta store), runs one import over HTTP, and prints the import's state as JSON
 * lines until the parent SIGKILLs it.
 *
 *   node --no-node-snapshot --import tsx plugins/imports/kill-child.ts <dataDir> <importId> <userId>
 */
import { createApp } from '../../kernel/app.js';
import { loadConfig } from '../../kernel/config.js';
import { firstPartyPlugins } from '../index.js';

const [dataDir, importId, userId] = process.argv.slice(2);
if (!dataDir || !importId || !userId) throw new Error('usage: kill-child.ts <dataDir> <importId> <userId>');

const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
// A short lease, so the next instance takes the job over soon after this process is gone.
const app = await createApp({ config, plugins: firstPartyPlugins, jobs: { pollMs: 50, leaseMs: 1000 } });
const url = await app.listen();
const session = await app.kernel.identity.createSession(userId, { ip: null, userAgent: 'kill-child' });
const headers = { cookie: `svc_session=${app.http.signCookie(session.token)}`, origin: url };
const run = await fetch(`${url}/api/v1/imports/${importId}/run`, { method: 'POST', headers });
console.log(JSON.stringify({ run: run.status }));
for (;;) {
  const res = await fetch(`${url}/api/v1/imports/${importId}`, { headers });
  const body = (await res.json()) as { data: { import: { state: string; counts: { total: number } } } };
  console.log(JSON.stringify({ state: body.data.import.state, total: body.data.import.counts.total }));
  await new Promise((r) => setTimeout(r, 100));
}
