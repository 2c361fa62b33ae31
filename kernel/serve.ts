import { createApp, type App } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import type { PluginDefinition } from './plugin/manifest.js';
import { stopOnSignals } from './signals.js';

/**
 * One process serving the dashboard and the API with `plugins`, configured from the
 * environment, stopped by SIGINT/SIGTERM. Shared by the server's entry (kernel/main.ts) and
 * the dev entry (scripts/dev-instance.ts), which differ only in the plugins they pass.
 * A configuration or start failure is printed and exits 1.
 */
export async function serve(plugins: PluginDefinition[]): Promise<App> {
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
    app = await createApp({ config, plugins });
  } catch (err) {
    process.stderr.write(`Cannot start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const address = await app.listen();
  app.kernel.log.info({ address, meta: app.kernel.meta.placement.dialect }, `serving dashboard and API at ${address}`);
  stopOnSignals(app);
  return app;
}
