/**
 * GET /api/v1/bootstrap, signed in as the super admin and warm, against GET /api/v1/healthz on
 * the same server, in the same run. Bootstrap is the dashboard's whole first paint (setup state,
 * instance facts, user, permissions, prefs, navigation, unread notifications, onboarding, the
 * public API switch), read from what is kept in memory (decisions BO2); healthz is the cheapest
 * route. The figure is the server CPU per request of bootstrap over healthz's; the target is
 * under 5x (issue 28 "Measured"). Printed, never asserted; not part of npm test.
 *
 * One server (our instance from the sources, a SQLite meta store) in a child process; autocannon
 * here. Order bootstrap/healthz/healthz/bootstrap, each measured run after a warm-up.
 *
 *   npm run bench -- bootstrap
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=10 BENCH_REPEAT=2 node --no-node-snapshot --import tsx bench/bootstrap.ts
 */
import { abba, runsTable, type Contender } from './lib/abba.js';
import { benchMain, startOurs } from './lib/child.js';
import { positiveInt, printMachine } from './lib/env.js';
import { forkTarget, load, type Target } from './lib/harness.js';

const BOOTSTRAP = '/api/v1/bootstrap';
const HEALTHZ = '/api/v1/healthz';
/** Server time of a warm bootstrap, at most this many healthz requests' worth. */
const TARGET = 5;

async function signIn(target: Target): Promise<string> {
  const res = await fetch(target.url + '/api/v1/setup/super-admin', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password', name: 'Bench' }),
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 201) throw new Error(`setup answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers.getSetCookie().find((l) => l.startsWith('svc_session='));
  if (!cookie) throw new Error('setup set no session cookie');
  return cookie.split(';')[0]!;
}

async function checkBootstrap(target: Target, cookie: string): Promise<void> {
  const res = await fetch(target.url + BOOTSTRAP, { headers: { cookie }, signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as { data?: { session?: { user?: unknown; permissions?: string[] } | null } };
  if (res.status !== 200 || !body.data?.session?.user || !body.data.session.permissions?.length)
    throw new Error(`bootstrap answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
}

async function parent(): Promise<void> {
  const duration = positiveInt('BENCH_DURATION', 5);
  const connections = positiveInt('BENCH_CONNECTIONS', 10);
  const repeat = positiveInt('BENCH_REPEAT', 1);
  const warmup = positiveInt('BENCH_WARMUP', 2);
  console.log(
    `bootstrap: GET ${BOOTSTRAP} (signed in, warm) vs GET ${HEALTHZ}, same server, ${connections} connections, ${warmup} s warm-up + ${duration} s per run` +
      (repeat > 1 ? ` x${repeat}` : ''),
  );
  printMachine();
  const target = await forkTarget('ours', '../bootstrap.ts', ['ours']);
  try {
    const cookie = await signIn(target);
    await checkBootstrap(target, cookie);
    const bootstrap: Contender = { name: 'bootstrap', load: (s) => load(target, { path: BOOTSTRAP, headers: { cookie } }, { connections, duration: s }) };
    const healthz: Contender = { name: 'healthz', load: (s) => load(target, HEALTHZ, { connections, duration: s }) };
    const measured = await abba([bootstrap, healthz], { repeat, warmup, duration });
    const b = measured.summary(bootstrap);
    const h = measured.summary(healthz);
    const ratio = b.cpu / h.cpu;
    console.log(`\n${runsTable(measured, [bootstrap, healthz])}\n`);
    console.log(`ratio bootstrap/healthz, server CPU/req: ${ratio.toFixed(2)} (target < ${TARGET}) ${ratio < TARGET ? 'MET' : 'ABOVE TARGET'}`);
    console.log(`ratio healthz/bootstrap, req/s:          ${(h.rps / b.rps).toFixed(2)}`);
  } finally {
    await target.stop();
  }
}

await benchMain('bootstrap', { ours: () => startOurs(), bare: () => Promise.reject(new Error('bootstrap has no bare server')) }, parent);
