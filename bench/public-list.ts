/**
 * A public list of 20 rows (GET /api/v1/public/records/items with a server key) on our real
 * instance against a bare fastify + pg handler running the same query on the same PostgreSQL
 * table, in the same run. Ours pays for everything a public request does: the gate (switch,
 * per-address limit, NUL check, key lookup in the meta store), the endpoint and its limits, the
 * default filter, keyset paging, the row codec and the contract's response check. Goal: ours
 * answers >= 0.7 of bare's requests per second.
 *
 * Each server runs in its own child process (this file, forked with `ours` or `bare`);
 * autocannon runs here. Order ours/bare/bare/ours, each measured run after a 5 s warm-up (a server in production
 * runs warm; 1 s leaves ours, compiled on the fly by tsx, still warming up in its first run).
 * Every request comes from another address (X-Forwarded-For, the instance trusts the proxy)
 * and cycles through 8 server keys, so the per-address and per-key limits measure their cost
 * without refusing the load.
 *
 *   npm run bench -- public-list
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=64 BENCH_REPEAT=2 node --no-node-snapshot --import tsx bench/public-list.ts
 *   BENCH_PROFILE=/tmp/prof npm run bench -- public-list    # CPU profiles of both servers under load
 *   BENCH_WARMUP=1 npm run bench -- public-list             # seconds of warm-up before each run (default 5)
 *   BENCH_PROFILE=/tmp/prof BENCH_HEAP=1 npm run bench -- public-list   # sampled allocations instead of CPU
 *   node --import tsx bench/lib/profile-diff.ts /tmp/prof   # where ours spends more than bare, per request
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { createApp } from '../kernel/app.js';
import { loadConfig } from '../kernel/config.js';
import { firstPartyPlugins } from '../plugins/index.js';
import { runScript } from '../test/fixtures/schema/load.js';
import { HttpClient } from '../test/helpers/client.js';
import { createTempDatabase, databaseAvailable } from '../test/helpers/databases.js';
import { ROOT } from '../test/helpers/identity.js';
import { forkTarget, table, type Target } from './lib/harness.js';

const PATH = '/api/v1/public/records/items';
const GOAL = 0.7;
const KEYS = 8;
const ORIGIN = 'https://shop.example';
/** Both sides get the pool size a connection gets by default (kernel/sources DEFAULT_SOURCE_SETTINGS). */
const POOL = 5;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (got "${raw}")`);
  return n;
}

// ---- child: one server, told which kind by argv ----

interface Served {
  url: string;
  close(): Promise<void>;
}

async function serveOurs(): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-public-'));
  const config = loadConfig({
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_HOST: '127.0.0.1',
    SVC_LOG_LEVEL: 'silent',
    SVC_NETWORK_FEATURES: 'false',
    SVC_PUBLIC_API_ORIGINS: ORIGIN,
    SVC_TRUST_PROXY: 'true',
  });
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

/** The same SELECT ours runs for the page (newest key first, one row more to know a next page exists). */
async function serveBare(sourceUrl: string): Promise<Served> {
  const pool = new pg.Pool({ connectionString: sourceUrl, max: POOL });
  const app = Fastify({ logger: false });
  app.get(PATH, async (req, reply) => {
    if (!req.headers.authorization) return reply.code(401).send({ error: { code: 'PUBLIC_KEY_INVALID' } });
    const res = await pool.query(
      'select "id" as c0, "name" as c1, "sku" as c2, cast("price" as text) as c3, "published" as c4 from "products" where "published" = $1 order by "id" desc limit 21',
      [true],
    );
    const rows = res.rows.slice(0, 20).map((r) => ({ id: r.c0, name: r.c1, sku: r.c2, price: r.c3, published: r.c4 }));
    const cursor = res.rows.length > 20 ? Buffer.from(JSON.stringify({ s: '', k: [rows[19]!.id] })).toString('base64url') : null;
    return { data: rows, page: { limit: 20, count: rows.length }, cursor };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}

/**
 * BENCH_PROFILE=<dir>: each server writes `<dir>/<kind>.cpuprofile`, a V8 CPU profile from the
 * first load (the first CPU reading) to the end, so start-up and set-up stay out of it, which
 * `node --cpu-prof` would mix in. Warm-ups are in it; idle time is marked as such.
 */
async function cpuProfiler(dir: string, kind: string): Promise<{ start(): void; stop(): Promise<void> }> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  const heap = process.env.BENCH_HEAP === '1';
  await session.post(heap ? 'HeapProfiler.enable' : 'Profiler.enable');
  let started: Promise<void> | null = null;
  return {
    start() {
      started ??= heap
        ? session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true } as never)
        : session.post('Profiler.start');
    },
    async stop() {
      if (!started) return;
      await started;
      mkdirSync(dir, { recursive: true });
      if (heap) {
        const { profile } = await session.post('HeapProfiler.stopSampling');
        writeFileSync(join(dir, `${kind}.heapprofile`), JSON.stringify(profile));
        return;
      }
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(dir, `${kind}.cpuprofile`), JSON.stringify(profile));
    },
  };
}

async function child(kind: string, sourceUrl: string): Promise<void> {
  if (!process.send) throw new Error('public-list.ts ours|bare runs as a forked child of the bench');
  const served = kind === 'ours' ? await serveOurs() : await serveBare(sourceUrl);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await profiler?.stop();
    await served.close().catch(() => undefined);
    process.exit(0);
  };
  const profiler = process.env.BENCH_PROFILE ? await cpuProfiler(process.env.BENCH_PROFILE, kind) : null;
  process.on('message', (msg) => {
    if (msg === 'stop') void stop();
    if (msg === 'cpu') {
      profiler?.start();
      process.send?.({ cpu: process.cpuUsage() });
    }
  });
  process.on('disconnect', () => void stop());
  process.send({ url: served.url });
}

// ---- parent: set up, load, report ----

/** The admin side of ours, over its own HTTP API: connection, switch, endpoint, server keys. */
async function configureOurs(url: string, sourceUrl: string): Promise<string[]> {
  const admin = new HttpClient(url);
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await admin.request(method, `/api/v1${path}`, { body });
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body;
  };
  await ok('POST', '/setup/super-admin', ROOT);
  const connection = (await ok('POST', '/connections', { name: 'Bench', dialect: 'postgres', url: sourceUrl })).data.connection.id as string;
  await ok('POST', `/connections/${connection}/introspect`, {});
  await ok('PUT', '/public-api', { enabled: true });
  await ok('POST', '/public-scopes', {
    ref: 'items',
    connectionId: connection,
    table: 'products',
    columns: ['id', 'name', 'sku', 'price', 'published'],
    filters: [{ column: 'published', op: 'eq', value: true }],
    rateLimit: 100_000,
  });
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) keys.push((await ok('POST', '/public-keys', { name: `bench ${i}`, kind: 'server', expires: 'never', grants: [{ ref: 'items', methods: ['GET'] }] })).data.secret);
  return keys;
}

interface Run {
  rps: number;
  p99: number;
  total: number;
  cpuPerRequest: number;
  failures: number;
}

/** autocannon with a new address per request and the keys in turn (the harness's load() sends fixed headers). */
async function load(target: Target, keys: string[], connections: number, duration: number): Promise<Run> {
  let n = 0;
  const before = await target.cpu();
  const r = await autocannon({
    url: target.url,
    connections,
    duration,
    requests: [
      {
        method: 'GET',
        path: PATH,
        setupRequest: (req) => {
          n++;
          const headers = { ...req.headers, authorization: `Bearer ${keys[n % keys.length]}`, 'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` };
          return { ...req, headers };
        },
      },
    ],
  });
  const after = await target.cpu();
  return {
    rps: r.requests.average,
    p99: r.latency.p99,
    total: r.requests.total,
    cpuPerRequest: r.requests.total > 0 ? (after - before) / r.requests.total : 0,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

async function firstPage(target: Target, key: string): Promise<unknown> {
  const res = await fetch(target.url + PATH, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as { data?: unknown[] };
  if (res.status !== 200 || !Array.isArray(body.data) || body.data.length !== 20) throw new Error(`${target.name}: unexpected answer ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.data;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function parent(): Promise<void> {
  const duration = positiveInt('BENCH_DURATION', 5);
  const connections = positiveInt('BENCH_CONNECTIONS', 64);
  const repeat = positiveInt('BENCH_REPEAT', 1);
  // 1 s leaves ours' first run still warming up (JIT under tsx); a longer one measures the warm server.
  const WARMUP_S = positiveInt('BENCH_WARMUP', 5);
  if (!(await databaseAvailable('postgres'))) {
    console.log('public-list: PostgreSQL is not reachable: nothing to measure.');
    return;
  }
  console.log(`public-list: GET ${PATH} (20 rows), ${connections} connections, ${WARMUP_S} s warm-up + ${duration} s per run, order ours/bare/bare/ours` + (repeat > 1 ? ` x${repeat}` : ''));
  const cores = cpus().length;
  const [load1 = 0] = loadavg();
  console.log(`machine: ${cores} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, load average ${load1.toFixed(1)}`);
  if (load1 > cores / 2) console.log(`!!! the machine is busy (load ${load1.toFixed(1)} on ${cores} cores): expect noisy numbers, compare the CPU column`);
  console.log('');

  const temp = await createTempDatabase('postgres');
  const targets: Target[] = [];
  try {
    await runScript('postgres', temp.url, readFileSync(new URL('../plugins/public-api/fixtures/postgres.sql', import.meta.url), 'utf8'));
    const ours = await forkTarget('ours', '../public-list.ts', ['ours', temp.url]);
    targets.push(ours);
    const bare = await forkTarget('bare', '../public-list.ts', ['bare', temp.url]);
    targets.push(bare);
    const keys = await configureOurs(ours.url, temp.url);
    const [oursPage, barePage] = [await firstPage(ours, keys[0]!), await firstPage(bare, keys[0]!)];
    if (JSON.stringify(oursPage) !== JSON.stringify(barePage)) throw new Error(`the two pages differ:\n${JSON.stringify(oursPage).slice(0, 300)}\n${JSON.stringify(barePage).slice(0, 300)}`);

    const runs: { target: Target; result: Run }[] = [];
    // Every request a profile covers (warm-ups too), so bench/lib/profile-diff.ts can put its figures per request.
    const profiled: Record<string, number> = { ours: 0, bare: 0 };
    for (const target of Array.from({ length: repeat }, () => [ours, bare, bare, ours]).flat()) {
      const warm = await load(target, keys, connections, WARMUP_S);
      const result = await load(target, keys, connections, duration);
      profiled[target.name]! += warm.total + result.total;
      if (result.failures > 0) throw new Error(`${target.name}: ${result.failures} failed requests (non-2xx, errors or timeouts): the run is not valid`);
      runs.push({ target, result });
      console.log(`  ${target.name.padEnd(4)} ${Math.round(result.rps)} req/s, p99 ${result.p99} ms, ${result.cpuPerRequest.toFixed(1)} µs server CPU per request`);
    }
    const summary = (t: Target) => {
      const mine = runs.filter((r) => r.target === t).map((r) => r.result);
      return { rps: mean(mine.map((r) => r.rps)), p99: mean(mine.map((r) => r.p99)), cpu: mean(mine.map((r) => r.cpuPerRequest)) };
    };
    if (process.env.BENCH_PROFILE) {
      mkdirSync(process.env.BENCH_PROFILE, { recursive: true });
      writeFileSync(join(process.env.BENCH_PROFILE, 'requests.json'), JSON.stringify(profiled));
    }
    const o = summary(ours);
    const b = summary(bare);
    const rows = runs.map(({ target, result }, i) => [`${i + 1}. ${target.name}`, Math.round(result.rps).toString(), result.p99.toString(), result.cpuPerRequest.toFixed(1), result.total.toString()]);
    rows.push(['mean ours', Math.round(o.rps).toString(), o.p99.toFixed(1), o.cpu.toFixed(1)], ['mean bare', Math.round(b.rps).toString(), b.p99.toFixed(1), b.cpu.toFixed(1)]);
    console.log('\n' + table(['run', 'req/s', 'p99 ms', 'server µs/req', 'requests'], rows));
    const ratio = o.rps / b.rps;
    console.log(`\nratio ours/bare, req/s:           ${ratio.toFixed(2)} (goal >= ${GOAL}) ${ratio >= GOAL ? 'MET' : 'BELOW GOAL'}`);
    console.log(`ratio bare/ours, server CPU/req:  ${(b.cpu / o.cpu).toFixed(2)} (the same question, less sensitive to a busy machine)`);
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    await temp.drop().catch(() => undefined);
  }
}

const [kind, sourceUrl] = process.argv.slice(2);
if (kind === 'ours' || kind === 'bare') {
  await child(kind, sourceUrl!);
} else {
  parent().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`public-list bench failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
