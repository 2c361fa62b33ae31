/**
 * The child process of the undo kill test (undo-kill.test.ts): starts an instance on an existing
 * data dir (and its SQLite meta store) and asks for one undo over HTTP. The test holds a lock on
 * the source so the undo cannot commit there, and SIGKILLs this process while it waits.
 *
 *   node --no-node-snapshot --import tsx plugins/data/undo-kill-child.ts <dataDir> <token> <userId>
 */
import { createApp } from '../../kernel/app.js';
import { loadConfig } from '../../kernel/config.js';
import { firstPartyPlugins } from '../index.js';

const [dataDir, token, userId] = process.argv.slice(2);
if (!dataDir || !token || !userId) throw new Error('usage: undo-kill-child.ts <dataDir> <token> <userId>');

const config = loadConfig({
  SVC_DATA_DIR: dataDir,
  SVC_PORT: '0',
  SVC_HOST: '127.0.0.1',
  SVC_LOG_LEVEL: process.env.CHILD_LOG ?? 'silent',
  SVC_NETWORK_FEATURES: 'false',
});
const app = await createApp({ config, plugins: firstPartyPlugins });
const url = await app.listen();
const session = await app.kernel.identity.createSession(userId, { ip: null, userAgent: 'undo-kill-child' });
const headers = { cookie: `svc_session=${app.http.signCookie(session.token)}`, origin: url };
console.log(JSON.stringify({ sending: true }));
const res = await fetch(`${url}/api/v1/data/undo/${token}`, { method: 'POST', headers });
console.log(JSON.stringify({ status: res.status, body: await res.text() }));
