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
import { abba, pairReport, type Contender } from './lib/abba.js';
import { positiveInt, printMachine } from './lib/env.js';
import { forkTarget, load, type Target } from './lib/harness.js';

const PATH = '/api/v1/healthz';
const GOAL = 0.9;
const WARMUP_S = 1;

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

async function main(): Promise<void> {
  console.log(
    `healthz: GET ${PATH}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per run, order ours/bare/bare/ours` +
      (REPEAT > 1 ? ` x${REPEAT}` : ''),
  );
  printMachine();

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

    const contenders: Contender[] = [ours, bare].map((target) => ({
      name: target.name,
      load: (seconds: number) => load(target, PATH, { connections: CONNECTIONS, duration: seconds }),
    }));
    const measured = await abba(contenders, { repeat: REPEAT, warmup: WARMUP_S, duration: DURATION_S });
    console.log(pairReport(measured, [contenders[0]!, contenders[1]!], GOAL));
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
