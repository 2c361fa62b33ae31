import type { App } from './app.js';

/**
 * SIGTERM and SIGINT drain the app (decisions K43), then the process exits 0. A second signal
 * during the drain changes nothing: the grace period already bounds it.
 */
export function stopOnSignals(app: App, exit: (code: number) => void = (code) => process.exit(code)): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.kernel.log.info({ signal, graceMs: app.kernel.config.shutdownGraceMs }, 'shutting down: draining requests in flight');
    try {
      await app.shutdown();
    } catch (err) {
      app.kernel.log.error({ err: { message: (err as Error).message } }, 'shutdown did not finish cleanly');
    }
    exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
