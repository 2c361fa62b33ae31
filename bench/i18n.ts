/**
 * GET /api/v1/i18n/bundle/{locale}/{namespace}, warm, answered 200 (the whole bundle) and 304
 * (If-None-Match with its ETag), against GET /api/v1/healthz on the same server, in the same run
 * (issue 31 "Measured": each at least 0.8 of healthz in req/s). The bundle is en/shell, the
 * largest the first paint loads. Printed, never asserted; not part of npm test.
 *
 * One server (our instance from the sources, a SQLite meta store) in a child process; autocannon
 * here. Order 200/304/healthz/healthz/304/200, each measured run after a warm-up.
 *
 * What bytes alone cost: a bare fastify in a second child answers the same bundle bytes
 * (uncompressed, from memory) and a healthz-sized body, measured in the same passes. Its ratio is
 * the floor any server reaches sending 9 KB against a 100-byte answer on this machine (the socket
 * writes and the client's reads share the two cores), and `bundle 200 / bare same bytes` says how
 * far ours is from it.
 *
 *   npm run bench -- i18n
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=10 BENCH_REPEAT=2 node --no-node-snapshot --import tsx bench/i18n.ts
 */
import { loadavg } from 'node:os';
import { abba, runsTable, type Contender } from './lib/abba.js';
import { bareHealthz, benchMain, startBare, startOurs } from './lib/child.js';
import { positiveInt, printMachine } from './lib/env.js';
import { forkTarget, load } from './lib/harness.js';

const BUNDLE = process.env.BENCH_I18N_BUNDLE ?? '/api/v1/i18n/bundle/en/shell';
const HEALTHZ = '/api/v1/healthz';
const GOAL = 0.8;

async function parent(): Promise<void> {
  const duration = positiveInt('BENCH_DURATION', 5);
  const connections = positiveInt('BENCH_CONNECTIONS', 10);
  const repeat = positiveInt('BENCH_REPEAT', 1);
  const warmup = positiveInt('BENCH_WARMUP', 2);
  console.log(
    `i18n: GET ${BUNDLE} warm (200, and 304 with its ETag) vs GET ${HEALTHZ}, same server, ${connections} connections, ${warmup} s warm-up + ${duration} s per run` +
      (repeat > 1 ? ` x${repeat}` : ''),
  );
  printMachine();
  const target = await forkTarget('ours', '../i18n.ts', ['ours']);
  let bare: Awaited<ReturnType<typeof forkTarget>> | null = null;
  try {
    const first = await fetch(target.url + BUNDLE, { signal: AbortSignal.timeout(5_000) });
    const body = (await first.json()) as { data?: { messages?: Record<string, string> } };
    const etag = first.headers.get('etag');
    if (first.status !== 200 || !etag || !body.data?.messages) throw new Error(`the bundle answered ${first.status} ${JSON.stringify(body).slice(0, 200)}`);
    const again = await fetch(target.url + BUNDLE, { headers: { 'if-none-match': etag }, signal: AbortSignal.timeout(5_000) });
    if (again.status !== 304) throw new Error(`If-None-Match answered ${again.status}, not 304`);
    const size = Buffer.byteLength(JSON.stringify(body));
    console.log(`bundle: ${Object.keys(body.data.messages).length} messages, ${size} bytes, ETag ${etag}`);

    const ok: Contender = { name: 'bundle 200', load: (s) => load(target, BUNDLE, { connections, duration: s }) };
    const notModified: Contender = {
      name: 'bundle 304',
      load: (s) => load(target, { path: BUNDLE, headers: { 'if-none-match': etag }, notModified: true }, { connections, duration: s }),
    };
    // As a browser asks: the brotli copy made once (IN6), not compressed per request.
    const brotli: Contender = {
      name: 'bundle 200 br',
      load: (s) => load(target, { path: BUNDLE, headers: { 'accept-encoding': 'gzip, deflate, br' } }, { connections, duration: s }),
    };
    const healthz: Contender = { name: 'healthz', load: (s) => load(target, HEALTHZ, { connections, duration: s }) };
    bare = await forkTarget('bare', '../i18n.ts', ['bare'], { BENCH_I18N_BODY_URL: target.url + BUNDLE });
    const bareTarget = bare;
    const bareBytes: Contender = { name: 'bare same bytes', load: (s) => load(bareTarget, BUNDLE, { connections, duration: s }) };
    const bareHealth: Contender = { name: 'bare healthz', load: (s) => load(bareTarget, HEALTHZ, { connections, duration: s }) };
    const all = [ok, brotli, notModified, healthz, bareBytes, bareHealth];
    const measured = await abba(all, { repeat, warmup, duration });
    const h = measured.summary(healthz);
    console.log(`\n${runsTable(measured, all)}\n`);
    for (const c of [ok, brotli, notModified]) {
      const s = measured.summary(c);
      const ratio = s.rps / h.rps;
      console.log(
        `ratio ${c.name}/healthz, req/s: ${ratio.toFixed(2)} (goal >= ${GOAL}) ${ratio >= GOAL ? 'MET' : 'BELOW GOAL'}; server CPU/req healthz/${c.name}: ${(h.cpu / s.cpu).toFixed(2)}`,
      );
    }
    const floor = measured.summary(bareBytes).rps / measured.summary(bareHealth).rps;
    console.log(`bytes alone (bare fastify): same bytes/healthz, req/s: ${floor.toFixed(2)}`);
    console.log(`ours bundle 200 / bare same bytes, req/s: ${(measured.summary(ok).rps / measured.summary(bareBytes).rps).toFixed(2)}`);
    console.log(
      `load average after the run: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await bare?.stop();
    await target.stop();
  }
}

/** The bare server: the bundle's bytes as ours sent them (read from ours once) and healthz. */
async function startBareBundle() {
  const from = process.env.BENCH_I18N_BODY_URL;
  if (!from) throw new Error('BENCH_I18N_BODY_URL names the bundle to copy');
  const body = Buffer.from(await (await fetch(from)).arrayBuffer());
  return startBare((app) => {
    bareHealthz(app, HEALTHZ);
    app.get(BUNDLE, (_req, reply) => {
      void reply.header('content-type', 'application/json; charset=utf-8').send(body);
    });
  });
}

await benchMain('i18n', { ours: () => startOurs(), bare: () => startBareBundle() }, parent);
