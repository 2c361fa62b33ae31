/**
 * Child process for bench/healthz.ts: serves GET /api/v1/healthz on an ephemeral loopback port,
 * either from our real instance (`ours`) or from a bare fastify app answering the same body
 * (`bare`). It reports its URL over IPC, answers `cpu` with its CPU usage, and stops when the
 * parent says so or goes away.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { createApp } from '../../kernel/app.js';
import { loadConfig } from '../../kernel/config.js';
import { VERSION } from '../../kernel/version.js';
import { firstPartyPlugins } from '../../plugins/index.js';

export type TargetKind = 'ours' | 'bare';

async function startOurs(): Promise<{ url: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
  const app = await createApp({ config, plugins: firstPartyPlugins });
  const url = await app.listen();
  return {
    url,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startBare(): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false });
  const startedAt = Date.now();
  app.get('/api/v1/healthz', async () => ({ ok: true as const, version: VERSION, uptime: Math.max(0, (Date.now() - startedAt) / 1000) }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}

const kind = process.argv[2] as TargetKind;
if (kind !== 'ours' && kind !== 'bare') throw new Error(`usage: healthz-target.ts ours|bare (got ${String(kind)})`);
if (!process.send) throw new Error('healthz-target.ts runs as a forked child of bench/healthz.ts');

const target = kind === 'ours' ? await startOurs() : await startBare();
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await target.close().catch(() => undefined);
  process.exit(0);
};
process.on('message', (msg) => {
  if (msg === 'stop') void stop();
  // The parent reads this process's CPU time around each run to get CPU per request.
  if (msg === 'cpu') process.send?.({ cpu: process.cpuUsage() });
});
process.on('disconnect', () => void stop());
process.send({ url: target.url });
