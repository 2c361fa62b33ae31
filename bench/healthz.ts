/**
 * GET /api/v1/healthz on our real instance (every kernel hook, the contract route with zod
 * response validation) against a bare fastify app answering the same JSON body. The ratio
 * ours/bare is the kernel's per-request overhead on the cheapest route; the goal is >= 0.9.
 *
 * Each server runs in its own child process; autocannon runs here. Order is ABBA (ours, bare,
 * bare, ours), each measured run preceded by a 1 s warm-up on the same server.
 *
 *   npm run bench                                   # every bench
 *   node --no-node-snapshot --import tsx bench/healthz.ts
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=10 BENCH_REPEAT=3 …   # s per run, connections, ABBA passes
 */
import { cpus, loadavg } from 'node:os';
import { forkTarget, load, table, type LoadResult, type Target } from './lib/harness.js';

const PATH = '/api/v1/healthz';
const GOAL = 0.9;
const WARMUP_S = 1;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (got "${raw}")`);
  return n;
}

const DURATION_S = positiveInt('BENCH_DURATION', 5);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 10);
/** How many times the ours/bare/bare/ours sequence runs. */
const REPEAT = positiveInt('BENCH_REPEAT', 1);

async function checkBody(t: Target): Promise<Record<string, unknown>> {
  const res = await fetch(t.url + PATH, { signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200 || body.ok !== true || typeof body.version !== 'string' || typeof body.uptime !== 'number') {
    throw new Error(`${t.name}: unexpected answer ${res.status} ${JSON.stringify(body)}`);
  }
  return body;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  console.log(
    `healthz: GET ${PATH}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per run, order ours/bare/bare/ours` +
      (REPEAT > 1 ? ` x${REPEAT}` : ''),
  );
  const cores = cpus().length;
  const [load1 = 0] = loadavg();
  console.log(`machine: ${cores} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, load average ${load1.toFixed(1)}`);
  if (load1 > cores / 2) console.log(`!!! the machine is busy (load ${load1.toFixed(1)} on ${cores} cores): expect noisy numbers, compare the CPU column`);
  console.log('');

  const targets: Target[] = [];
  try {
    const ours = await forkTarget('ours', './healthz-target.ts', ['ours']);
    targets.push(ours);
    const bare = await forkTarget('bare', './healthz-target.ts', ['bare']);
    targets.push(bare);
    const oursBody = await checkBody(ours);
    const bareBody = await checkBody(bare);
    if (Object.keys(oursBody).sort().join() !== Object.keys(bareBody).sort().join() || oursBody.version !== bareBody.version) {
      throw new Error(`the two bodies differ: ${JSON.stringify(oursBody)} vs ${JSON.stringify(bareBody)}`);
    }

    const runs: { target: Target; result: LoadResult }[] = [];
    const order = Array.from({ length: REPEAT }, () => [ours, bare, bare, ours]).flat();
    for (const target of order) {
      await load(target, PATH, { connections: CONNECTIONS, duration: WARMUP_S });
      const result = await load(target, PATH, { connections: CONNECTIONS, duration: DURATION_S });
      if (result.failures > 0) throw new Error(`${target.name}: ${result.failures} failed requests (non-2xx, errors or timeouts): the run is not valid`);
      runs.push({ target, result });
      console.log(`  ${target.name.padEnd(4)} ${Math.round(result.rps)} req/s, ${result.cpuPerRequest.toFixed(1)} µs server CPU per request`);
    }

    const summary = (t: Target) => {
      const mine = runs.filter((r) => r.target === t).map((r) => r.result);
      return { rps: mean(mine.map((r) => r.rps)), cpu: mean(mine.map((r) => r.cpuPerRequest)) };
    };
    const o = summary(ours);
    const b = summary(bare);
    const rows = runs.map(({ target, result }, i) => [
      `${i + 1}. ${target.name}`,
      Math.round(result.rps).toString(),
      result.p99.toString(),
      result.cpuPerRequest.toFixed(1),
      result.total.toString(),
    ]);
    rows.push(['mean ours', Math.round(o.rps).toString(), '', o.cpu.toFixed(1)], ['mean bare', Math.round(b.rps).toString(), '', b.cpu.toFixed(1)]);
    console.log('\n' + table(['run', 'req/s', 'p99 ms', 'server µs/req', 'requests'], rows));
    const ratio = o.rps / b.rps;
    console.log(`\nratio ours/bare, req/s:           ${ratio.toFixed(2)} (goal >= ${GOAL}) ${ratio >= GOAL ? 'MET' : 'BELOW GOAL'}`);
    console.log(`ratio bare/ours, server CPU/req:  ${(b.cpu / o.cpu).toFixed(2)} (the same question, less sensitive to a busy machine)`);
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`healthz bench failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
