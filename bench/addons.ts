/**
 * The add-on platform's costs (issue 13, "Measured"), in one run:
 *
 *   1. A public write (POST /api/v1/public/records/{ref}) through an app endpoint whose table has
 *      a no-op `beforeWrite` hook, against the same endpoint of an app without hooks, on our
 *      real instance (SQLite connection). Goal: hooked >= 0.7 of plain's writes per second.
 *   2. Installing table-booking from the built-in catalog on a fresh instance (download, plan,
 *      install over HTTP). Goal: under 3 s.
 *   3. The API process's RSS while it makes BENCH_SANDBOX_CALLS (default 1,000,000) sandbox
 *      calls: it must not grow with the number of calls.
 *
 * Each write carries one of 8 server keys in turn and another X-Forwarded-For address, as in
 * public-list, so the per-address limit costs what it costs without refusing the load.
 *
 *   npm run bench -- addons
 *   BENCH_DURATION=3 BENCH_WARMUP=1 BENCH_SANDBOX_CALLS=100000 node --no-node-snapshot --import tsx bench/addons.ts   # a quick check
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '../test/helpers/client.js';
import { ROOT } from '../test/helpers/identity.js';
import { packFixture } from '../plugins/add-ons/testing.js';
import type { AddonManifestInput } from '../addons-sdk/src/manifest/index.js';
import { abba, ratioLines, runsTable, type Contender } from './lib/abba.js';
import { benchMain, startOurs } from './lib/child.js';
import { positiveInt, printMachine } from './lib/env.js';
import { forkTarget, load, type LoadRequest, type Target } from './lib/harness.js';

const ORIGIN = 'https://bench.example';
const KEYS = 8;
const HOOK_GOAL = 0.7;
const INSTALL_GOAL_MS = 3000;

const app = (key: string, hooked: boolean): AddonManifestInput => ({
  key,
  name: key,
  version: '1.0.0',
  engine: '>=0.1.0',
  tables: [
    {
      name: 'items',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'label', type: 'string', nullable: false },
      ],
    },
  ],
  endpoints: [{ ref: 'items', table: 'items', methods: ['GET', 'POST'], writable: ['label'], rateLimit: 100_000 }],
  hooks: hooked ? ['items.beforeWrite'] : [],
  actions: hooked ? ['noop'] : [],
});
const HOOKED_SERVER = `import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({ hooks: { 'items.beforeWrite': () => undefined }, actions: { noop: () => null } });
`;

class Admin {
  readonly client: HttpClient;
  constructor(readonly url: string) {
    this.client = new HttpClient(url);
  }
  async ok(method: string, path: string, body?: unknown) {
    const res = await this.client.request(method, `/api/v1${path}`, { body });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body;
  }
  async upload(bytes: Buffer) {
    const form = new FormData();
    form.append('file', new Blob([bytes as BlobPart]), 'package.tgz');
    const res = await fetch(`${this.url}/api/v1/add-ons/upload`, {
      method: 'POST',
      body: form,
      headers: { cookie: `svc_session=${this.client.cookie('svc_session')}`, origin: this.url },
    });
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  }
  async install(key: string, version: string, connectionId: string) {
    const plan = (await this.ok('GET', `/add-ons/${key}/plan?version=${version}&connectionId=${connectionId}`)).data.plan;
    return (await this.ok('POST', '/add-ons', { key, version, connectionId, planHash: plan.hash })).data.addon;
  }
}

async function configure(url: string, dbFile: string): Promise<{ admin: Admin; connectionId: string }> {
  new Database(dbFile).close();
  const admin = new Admin(url);
  await admin.ok('POST', '/setup/super-admin', ROOT);
  const connectionId = (await admin.ok('POST', '/connections', { name: 'Bench', dialect: 'sqlite', url: `sqlite:${dbFile}` })).data.connection.id as string;
  await admin.ok('PUT', '/public-api', { enabled: true });
  return { admin, connectionId };
}

function writeRequest(ref: string, keys: string[]): LoadRequest {
  let n = 0;
  return {
    path: `/api/v1/public/records/${ref}`,
    method: 'POST',
    body: JSON.stringify({ values: { label: 'bench' } }),
    headers: { 'content-type': 'application/json' },
    setupRequest: (req) => {
      n++;
      return {
        ...req,
        headers: { ...req.headers, authorization: `Bearer ${keys[n % keys.length]}`, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` },
      };
    },
  };
}

async function hookRatio(target: Target, dbDir: string, opts: { connections: number; duration: number; warmup: number; repeat: number }): Promise<void> {
  const { admin, connectionId } = await configure(target.url, join(dbDir, 'hooks.db'));
  for (const [key, hooked] of [
    ['plain', false],
    ['hooked', true],
  ] as const) {
    await admin.upload((await packFixture(app(key, hooked), hooked ? HOOKED_SERVER : null)).bytes);
    await admin.install(key, '1.0.0', connectionId);
  }
  const keysFor = async (ref: string) => {
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i++)
      keys.push(
        (await admin.ok('POST', '/public-keys', { name: `${ref} ${i}`, kind: 'server', expires: 'never', grants: [{ ref, methods: ['POST'] }] })).data.secret,
      );
    return keys;
  };
  const contender = (name: string, request: LoadRequest): Contender => ({
    name,
    load: (seconds) => load(target, request, { connections: opts.connections, duration: seconds }),
  });
  const plain = contender('plain', writeRequest('plain-items', await keysFor('plain-items')));
  const hooked = contender('hooked', writeRequest('hooked-items', await keysFor('hooked-items')));
  console.log(`1. public writes, ${opts.connections} connections: order plain/hooked/hooked/plain`);
  const measured = await abba([plain, hooked], opts);
  console.log('\n' + runsTable(measured, [plain, hooked]) + '\n');
  console.log(ratioLines({ name: 'hooked', summary: measured.summary(hooked) }, { name: 'plain', summary: measured.summary(plain) }, HOOK_GOAL, 40) + '\n');
}

async function installTime(target: Target, dbDir: string): Promise<void> {
  const { admin, connectionId } = await configure(target.url, join(dbDir, 'booking.db'));
  const catalog = (await admin.ok('GET', '/add-ons/catalog')).data.addons as Array<{ key: string; versions: Array<{ version: string }> }>;
  const booking = catalog.find((a) => a.key === 'table-booking');
  if (!booking) {
    console.log('2. install time: table-booking is not in the built-in catalog (run npm run build:catalog): not measured\n');
    return;
  }
  const version = booking.versions[0]!.version;
  const started = performance.now();
  await admin.ok('POST', '/add-ons/download', { key: 'table-booking', version });
  await admin.install('table-booking', version, connectionId);
  const ms = performance.now() - started;
  console.log(
    `2. install of table-booking ${version} from the built-in catalog (download, plan, install): ${ms.toFixed(0)} ms (goal < ${INSTALL_GOAL_MS} ms: ${ms < INSTALL_GOAL_MS ? 'met' : 'NOT met'})\n`,
  );
}

async function parent(): Promise<void> {
  const opts = {
    connections: positiveInt('BENCH_CONNECTIONS', 64),
    duration: positiveInt('BENCH_DURATION', 5),
    warmup: positiveInt('BENCH_WARMUP', 5),
    repeat: positiveInt('BENCH_REPEAT', 1),
  };
  const calls = positiveInt('BENCH_SANDBOX_CALLS', 1_000_000);
  console.log('addons: public writes with and without a beforeWrite hook; install time; API process RSS over sandbox calls');
  printMachine();
  const dbDir = mkdtempSync(join(tmpdir(), 'bench-addons-'));
  const targets: Target[] = [];
  try {
    const ours = await forkTarget('ours', '../addons.ts', ['ours']);
    targets.push(ours);
    await hookRatio(ours, dbDir, opts);
    const fresh = await forkTarget('fresh', '../addons.ts', ['ours']);
    targets.push(fresh);
    await installTime(fresh, dbDir);
    await rssOverCalls(calls);
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    rmSync(dbDir, { recursive: true, force: true });
  }
}

/** In this process (the API process of an instance started here): RSS every tenth of the calls. */
async function rssOverCalls(calls: number): Promise<void> {
  const served = await startOurs();
  try {
    const { servedKernel } = await import('./lib/child.js');
    const sandbox = servedKernel().sandbox;
    const call = () =>
      sandbox.call({
        addon: {
          key: 'rss',
          version: '1.0.0',
          code: 'export default { actions: { noop: () => null } };',
          limits: { memoryMb: 64, cpuMs: 200 },
          capabilities: [],
        },
        target: { kind: 'action', name: 'noop' },
        context: { instance: null, settings: {}, connection: null },
        input: null,
      });
    const mb = () => (process.memoryUsage().rss / 1024 / 1024).toFixed(0);
    const step = Math.max(1, Math.floor(calls / 10));
    const samples: string[] = [];
    let done = 0;
    const started = performance.now();
    const worker = async () => {
      while (done < calls) {
        done++;
        await call();
        if (done % step === 0) samples.push(`${done}: ${mb()} MB`);
      }
    };
    await call();
    const first = mb();
    await Promise.all(Array.from({ length: 4 }, worker));
    const secs = (performance.now() - started) / 1000;
    console.log(`3. API process RSS over ${calls} sandbox calls (${Math.round(calls / secs)} calls/s): after the first ${first} MB; ${samples.join(', ')}`);
  } finally {
    await served.close();
  }
}

await benchMain('addons', { ours: () => startOurs({ SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_TRUST_PROXY: 'true' }), bare: () => startOurs() }, parent);
