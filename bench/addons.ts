/**
 * The add-on platform's costs (issues 13 and 30, "Measured"), in one run:
 *
 *   1. A public write (POST /api/v1/public/records/{ref}) through an app endpoint whose table has
 *      a no-op `beforeWrite` hook, against the same endpoint of an app without hooks, on our
 *      real instance (SQLite connection). Goal: hooked >= 0.85 of plain's writes per second.
 *   1b. A trivial action over HTTP (POST /api/v1/public/apps/hooked/actions/noop, staff session)
 *      against a 1-row page of `/data` of the same server (GET …/data/{conn}/plain__items?limit=1,
 *      same session). Goal: action >= 0.5 of the page's requests per second. Server CPU per
 *      request of both processes: the API process (its own reading) and the sandbox child (/proc).
 *   2. Installing table-booking from the built-in catalog on a fresh instance (download, plan,
 *      install over HTTP). Goal: under 3 s.
 *   3. The API process's RSS while it makes BENCH_SANDBOX_CALLS (default 1,000,000) sandbox
 *      calls: it must not grow with the number of calls. Before it, the latency of one sandbox
 *      call without HTTP (p50/p90/p99 of sequential calls of a warm add-on; goal p50 <= 0.3 ms).
 *   4. RSS of the API process and of the sandbox child with 0, 1 and 5 add-ons installed (each
 *      called once, so its warm context is there), on fresh instances.
 *
 * Each write carries one of 8 server keys in turn and another X-Forwarded-For address, as in
 * public-list, so the per-address limit costs what it costs without refusing the load.
 *
 *   npm run bench -- addons
 *   BENCH_DURATION=3 BENCH_WARMUP=1 BENCH_SANDBOX_CALLS=100000 node --no-node-snapshot --import tsx bench/addons.ts   # a quick check
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '../test/helpers/client.js';
import { ROOT } from '../test/helpers/identity.js';
import { packFixture } from '../plugins/add-ons/testing.js';
import type { AddonManifestInput } from '../addons-sdk/src/manifest/index.js';
import { abba, median, ratioLines, runsTable, type Contender } from './lib/abba.js';
import { benchMain, startOurs } from './lib/child.js';
import { positiveInt, printMachine } from './lib/env.js';
import { forkTarget, load, type LoadRequest, type Target } from './lib/harness.js';

const ORIGIN = 'https://bench.example';
const KEYS = 8;
const HOOK_GOAL = 0.85;
const ACTION_GOAL = 0.5;
const SANDBOX_P50_GOAL_MS = 0.3;
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

async function hookRatio(
  target: Target,
  dbDir: string,
  opts: { connections: number; duration: number; warmup: number; repeat: number },
): Promise<{ admin: Admin; connectionId: string }> {
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
  return { admin, connectionId };
}

/** The pids of `pid`'s child processes (the sandbox child of a server), from /proc. */
function childPids(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) out.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    /* not Linux, or gone */
  }
  return out;
}

/** CPU time (user + system) of a process, µs, from /proc (clock ticks of 10 ms). */
function procCpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0;
  }
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Sums the CPU of `pid`'s children over a load (the sandbox child: one at a time, a new one after a crash is counted from 0). */
function childrenCpu(pid: number): () => number {
  const before = new Map(childPids(pid).map((c) => [c, procCpuMicros(c)]));
  return () => childPids(pid).reduce((sum, c) => sum + procCpuMicros(c) - (before.get(c) ?? 0), 0);
}

async function actionRatio(
  target: Target,
  admin: Admin,
  connectionId: string,
  opts: { connections: number; duration: number; warmup: number; repeat: number },
) {
  const headers = { cookie: `svc_session=${admin.client.cookie('svc_session')}`, origin: target.url, 'content-type': 'application/json' };
  const childCpu = new Map<string, number[]>();
  const contender = (name: string, request: LoadRequest): Contender => ({
    name,
    load: async (seconds) => {
      const spent = childrenCpu(target.pid!);
      const r = await load(target, request, { connections: opts.connections, duration: seconds });
      childCpu.set(name, [...(childCpu.get(name) ?? []), r.total > 0 ? spent() / r.total : 0]);
      return r;
    },
  });
  const page = contender('page', { path: `/api/v1/data/${connectionId}/plain__items?limit=1`, headers });
  const action = contender('action', { path: '/api/v1/public/apps/hooked/actions/noop', method: 'POST', body: JSON.stringify({ input: null }), headers });
  console.log(`1b. a trivial action against a 1-row /data page, staff session, ${opts.connections} connections: order page/action/action/page`);
  const measured = await abba([page, action], opts);
  console.log('\n' + runsTable(measured, [page, action]) + '\n');
  console.log(ratioLines({ name: 'action', summary: measured.summary(action) }, { name: 'page', summary: measured.summary(page) }, ACTION_GOAL, 40));
  const warm = opts.warmup > 0 ? 1 : 0;
  const sandboxCpu = (name: string) => median((childCpu.get(name) ?? []).slice(warm));
  const apiCpu = (c: Contender) => measured.summary(c).cpu;
  console.log(
    `server CPU per request, API process + sandbox child: page ${apiCpu(page).toFixed(0)} + ${sandboxCpu('page').toFixed(0)} µs, ` +
      `action ${apiCpu(action).toFixed(0)} + ${sandboxCpu('action').toFixed(0)} µs\n`,
  );
}

/** RSS of the API process and its sandbox child with `count` add-ons installed, each called once. */
async function rssWithAddons(count: number, dbDir: string): Promise<string> {
  const target = await forkTarget(`rss-${count}`, '../addons.ts', ['ours']);
  try {
    const { admin } = await configure(target.url, join(dbDir, `rss-${count}.db`));
    for (let i = 0; i < count; i++) {
      const key = `rss-${i}`;
      const m: AddonManifestInput = { key, name: key, version: '1.0.0', engine: '>=0.1.0', actions: ['noop'] };
      await admin.upload((await packFixture(m, HOOKED_SERVER)).bytes);
      await admin.ok('POST', '/add-ons', { key, version: '1.0.0', planHash: (await admin.ok('GET', `/add-ons/${key}/plan?version=1.0.0`)).data.plan.hash });
      await admin.ok('POST', `/public/apps/${key}/actions/noop`, { input: null });
    }
    await new Promise((r) => setTimeout(r, 2000));
    const children = childPids(target.pid!);
    const api = rssMiB(target.pid!);
    const child = children.reduce((sum, c) => sum + rssMiB(c), 0);
    return `${count} add-on(s): API ${api.toFixed(1)} MiB, sandbox child ${children.length ? child.toFixed(1) + ' MiB' : 'none'}`;
  } finally {
    await target.stop();
  }
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
    const { admin, connectionId } = await hookRatio(ours, dbDir, opts);
    await actionRatio(ours, admin, connectionId, opts);
    const fresh = await forkTarget('fresh', '../addons.ts', ['ours']);
    targets.push(fresh);
    await installTime(fresh, dbDir);
    await rssOverCalls(calls);
    const rss: string[] = [];
    for (const n of [0, 1, 5]) rss.push(await rssWithAddons(n, dbDir));
    console.log(`4. RSS, idle 2 s after each add-on was called once: ${rss.join('; ')}`);
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
    // RSS, and the JS heap in use beside it: a heap that stays flat while RSS climbs is garbage a major GC has not taken yet, not a leak.
    const mb = () => {
      const m = process.memoryUsage();
      return `${(m.rss / 1024 / 1024).toFixed(0)} (heap ${(m.heapUsed / 1024 / 1024).toFixed(0)})`;
    };
    const step = Math.max(1, Math.floor(calls / 10));
    const samples: string[] = [];
    let done = 0;
    const started = performance.now();
    const worker = async () => {
      while (done < calls) {
        const n = ++done;
        await call();
        if (n % step === 0) samples.push(`${n}: ${mb()} MB`);
      }
    };
    // Latency of one call, sequential, after the add-on's context is warm.
    for (let i = 0; i < 200; i++) await call();
    const times: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const t = performance.now();
      await call();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]!.toFixed(3);
    const p50 = Number(at(0.5));
    console.log(
      `3a. one sandbox call without HTTP (sequential, warm): p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, p99 ${at(0.99)} ms (goal p50 <= ${SANDBOX_P50_GOAL_MS} ms: ${p50 <= SANDBOX_P50_GOAL_MS ? 'met' : 'NOT met'})`,
    );
    const first = mb();
    await Promise.all(Array.from({ length: 4 }, worker));
    const secs = (performance.now() - started) / 1000;
    console.log(`3. API process RSS over ${calls} sandbox calls (${Math.round(calls / secs)} calls/s): after the first ${first} MB; ${samples.join(', ')}`);
  } finally {
    await served.close();
  }
}

await benchMain('addons', { ours: () => startOurs({ SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_TRUST_PROXY: 'true' }), bare: () => startOurs() }, parent);
