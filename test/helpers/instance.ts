import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createApp, type App } from '../../kernel/app.js';
import { loadConfig } from '../../kernel/config.js';
import type { JobRunnerOptions } from '../../kernel/jobs/options.js';
import type { PluginDefinition } from '../../kernel/plugin/manifest.js';
import { firstPartyPlugins } from '../../plugins/index.js';
import { HttpClient } from './client.js';
import { createTempDatabase, type ServerDialect, type TempDatabase } from './databases.js';

export type MetaChoice = 'sqlite' | ServerDialect;

export interface InstanceOptions {
  meta?: MetaChoice;
  /** Reuse a meta store URL (a second replica on the same database). */
  metaUrl?: string;
  env?: Record<string, string>;
  /** Plugins loaded besides the first-party ones. */
  plugins?: PluginDefinition[];
  /** First-party plugins to load in place of the one of the same name (one built with test options, e.g. `createAddonsPlugin`). */
  replacePlugins?: PluginDefinition[];
  now?: () => number;
  dashboardDir?: string;
  heartbeatMs?: number;
  /** Collect JSON log lines (at SVC_LOG_LEVEL or info) into this array. */
  logLines?: string[];
  /** Job workers, poll, lease and backoff times. */
  jobs?: JobRunnerOptions;
  /** A data directory of the test's own (kept on close; the test removes it). */
  dataDir?: string;
}

export interface TestInstance {
  url: string;
  app: App;
  dataDir: string;
  metaUrl: string | null;
  /** A client with its own cookie jar, sending Origin like a same-origin browser page. */
  client(): HttpClient;
  close(): Promise<void>;
}

function withReplaced(plugins: readonly PluginDefinition[], replacements: readonly PluginDefinition[]): PluginDefinition[] {
  for (const r of replacements) if (!plugins.some((p) => p.name === r.name)) throw new Error(`no first-party plugin ${r.name} to replace`);
  return plugins.map((p) => replacements.find((r) => r.name === p.name) ?? p);
}

/** SVC_PASSWORD_HASH for test instances and the child processes tests start. */
export const TEST_PASSWORD_HASH = 'm=1024,t=1,p=1';

/** A real instance on an ephemeral loopback port with a temp data dir (and temp database). */
export async function startInstance(opts: InstanceOptions = {}): Promise<TestInstance> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-test-'));
  let temp: TempDatabase | null = null;
  let metaUrl = opts.metaUrl ?? null;
  if (!metaUrl && opts.meta && opts.meta !== 'sqlite') {
    temp = await createTempDatabase(opts.meta);
    metaUrl = temp.url;
  }
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_LOG_LEVEL: opts.logLines ? 'info' : (process.env.TEST_LOG_LEVEL ?? 'silent'),
    SVC_NETWORK_FEATURES: 'false',
    // argon2id at its least cost: the default (64 MiB, 3 passes, 4 lanes) took 0.15–0.35 s of
    // both cores per hash, and nearly every test signs someone in. The default is tested in
    // kernel/identity/passwords.test.ts.
    SVC_PASSWORD_HASH: TEST_PASSWORD_HASH,
    ...(metaUrl ? { SVC_META_URL: metaUrl } : {}),
    ...opts.env,
  });
  let app: App;
  try {
    const logStream = opts.logLines
      ? new Writable({ write: (chunk, _enc, done) => (opts.logLines!.push(...String(chunk).split('\n').filter(Boolean)), done()) })
      : undefined;
    app = await createApp({
      config,
      plugins: [...withReplaced(firstPartyPlugins, opts.replacePlugins ?? []), ...(opts.plugins ?? [])],
      now: opts.now,
      dashboardDir: opts.dashboardDir,
      logStream,
      heartbeatMs: opts.heartbeatMs,
      jobs: opts.jobs,
    });
  } catch (err) {
    await temp?.drop();
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const address = await app.listen();
  return {
    url: address,
    app,
    dataDir,
    metaUrl,
    client: () => new HttpClient(address),
    async close() {
      await app.close();
      await temp?.drop();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
