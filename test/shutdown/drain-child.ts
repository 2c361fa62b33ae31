/**
 * Run as its own process by the drain tests: the server as `npm start` runs it (same signal
 * handling, kernel/signals.ts), plus the slow routes of drain-plugin.ts. Prints `{"url": …}`
 * once listening. Configured by the environment (SVC_DATA_DIR or SVC_META_URL, SVC_SHUTDOWN_GRACE_MS…).
 */
import '../../kernel/runtime/next-tick-shape.js';
import { createApp } from '../../kernel/app.js';
import { loadConfig } from '../../kernel/config.js';
import { stopOnSignals } from '../../kernel/signals.js';
import { firstPartyPlugins } from '../../plugins/index.js';
import { drainTestPlugin } from './drain-plugin.js';

const config = loadConfig({ SVC_HOST: '127.0.0.1', SVC_PORT: '0', SVC_LOG_LEVEL: 'warn', SVC_NETWORK_FEATURES: 'false', ...process.env });
const app = await createApp({ config, plugins: [...firstPartyPlugins, drainTestPlugin()], jobs: { pollMs: 200 } });
const url = await app.listen();
stopOnSignals(app);
process.stdout.write(`${JSON.stringify({ url })}\n`);
