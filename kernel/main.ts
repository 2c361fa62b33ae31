// First: it must run before any full collection (kernel/runtime/next-tick-shape.ts).
import './runtime/next-tick-shape.js';
import { ConfigError, loadConfig } from './config.js';
import { createApp } from './app.js';
import { stopOnSignals } from './signals.js';
import { firstPartyPlugins } from '../plugins/index.js';

/** `npm start`: one process serving the dashboard and the API. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  let app;
  try {
    app = await createApp({ config, plugins: firstPartyPlugins });
  } catch (err) {
    process.stderr.write(`Cannot start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const address = await app.listen();
  app.kernel.log.info({ address, meta: app.kernel.meta.placement.dialect }, `serving dashboard and API at ${address}`);
  stopOnSignals(app);
}

void main();
