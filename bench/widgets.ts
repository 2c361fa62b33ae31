/**
 * Dashboard widgets over a 1,000,000-row PostgreSQL table (issue 28, "Measured"):
 *
 * 1. One `POST /api/v1/widget-data/batch` of 8 widgets (count, sum, avg, count_distinct, a
 *    groupBy with limit 10, a groupBy with `other`, a day timeBucket in Europe/Berlin over a
 *    3-month range, a month timeBucket), warm: latency (mean, p50, p95, max) over BENCH_SAMPLES
 *    requests one at a time, alternating with the same statements sent through a pg.Pool
 *    directly (4 widgets at once, as the plugin runs them: the database's own share), then over
 *    the same number at a few connections at once (BENCH_BATCH_CONNECTIONS), all with the result
 *    cache off; then warm as people get it, on a second instance with the cache on (the default,
 *    WD6): one batch, then BENCH_SAMPLES repeats. Goal: under 300 ms; both lines are printed.
 * 2. One widget through `POST /api/v1/widget-data/query` against the same statement (the same
 *    text and parameters, captured from the plugin as it runs) through `pg` directly in a bare
 *    fastify handler, ABBA: req/s ratio (goal >= 0.8) and server CPU per request. Two widgets:
 *    `range`, a sum over one day of an indexed column at BENCH_CONNECTIONS (64): the database
 *    answers in well under a millisecond, so our route's own cost shows; and `scan`, a sum over
 *    the whole table at BENCH_SCAN_CONNECTIONS (4): every request is a full scan, the database
 *    saturates the 2 cores with 4 of them, and ours runs at most 4 widgets of a connection at
 *    once (WD4), so more connections only queue (at 16 and 2 s runs, 0–4 requests a run finished).
 *    `range` also runs bare held to PARALLEL statements at once (`bare@4`, a pool of 4): at 64
 *    connections ours' gate (WD4) is what limits it, and that ratio shows the route's own cost.
 *
 * The table is seeded once into the database `bench_widgets` and kept between runs (a comment on
 * the table records what was seeded; another BENCH_ROWS seeds it again, BENCH_DROP=1 drops it
 * first). Ours runs as `npm start` runs it (bench/lib/harness.ts oursTarget), bare is this file
 * forked with `bare`, and the statements are captured by this file forked with `capture` (ours
 * from the sources, with pg's Client.query wrapped) before anything is measured; ours, bare and
 * the capture must answer the same value. Ours runs with SVC_WIDGET_CACHE_MS=0: the widget result
 * cache (WD6) would answer every repeat from memory, and this measures the statements' work (but
 * for the batch's warm line, on its own instance with the cache on). A failed request or widget makes the run invalid
 * (exit 1); a slow result never does. Without a reachable PostgreSQL it says so and exits 0.
 *
 *   node --no-node-snapshot --import tsx bench/widgets.ts
 *   BENCH_SAMPLES=10 BENCH_REPEAT=2 node --no-node-snapshot --import tsx bench/widgets.ts
 *   BENCH_ONLY=batch|range|scan …                       # one part only
 *   BENCH_PROFILE=/tmp/wprof BENCH_ONLY=range …; node --import tsx bench/lib/profile-diff.ts /tmp/wprof
 */
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DEFAULT_SOURCE_SETTINGS } from '../engine/sources/types.js';
import { PARALLEL } from '../plugins/widget-data/options.js';
import { databaseAvailable } from '../test/helpers/databases.js';
import { abba, pairReport, ratioLines, runsTable, type Contender } from './lib/abba.js';
import { benchMain, startBare, startOurs, type Served } from './lib/child.js';
import { configureData } from './lib/data-setup.js';
import { positiveInt, printMachine } from './lib/env.js';
import { forkTarget, load, oursTarget, pinCores, table, type Target } from './lib/harness.js';
import { benchWidgets, ensureWidgetTable, WIDGET_TABLE, type WidgetQuery } from './lib/widget-table.js';

const TABLE = WIDGET_TABLE;
const BATCH_GOAL_MS = 300;
const RATIO_GOAL = 0.8;
/** The pool a connection gets by default; ours runs at most 4 widgets of a connection at once (WD4). */
const POOL = DEFAULT_SOURCE_SETTINGS.poolSize;
const QUERY_PATH = '/api/v1/widget-data/query';
const BATCH_PATH = '/api/v1/widget-data/batch';

type Widget = WidgetQuery;

/** The widgets of part 2: one statement each. */
function singles(connectionId: string): Record<'range' | 'scan', Widget> {
  return {
    range: {
      connectionId,
      table: TABLE,
      metric: { op: 'sum', column: 'amount' },
      range: { column: 'created_at', from: '2025-03-01T00:00:00Z', to: '2025-03-02T00:00:00Z' },
    },
    scan: { connectionId, table: TABLE, metric: { op: 'sum', column: 'amount' } },
  };
}

interface Captured {
  text: string;
  values: unknown[];
}

// ---- child: capture (ours from the sources, pg's Client.query wrapped) ----

/**
 * Starts ours in this process with every statement pg sends recorded, configures it, runs each
 * widget of `queries` once through POST /widget-data/query and reports `{ statements: {name:
 * Captured[]}, answers: {name: result} }`: the widget's own SELECTs on the table, in order
 * (not BEGIN, SET, COMMIT nor the instance's own statements).
 */
async function capture(sourceUrl: string, queriesJson: string): Promise<void> {
  const seen: Captured[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    const values = Array.isArray(second) ? second : ((first as { values?: unknown[] } | null)?.values ?? []);
    if (typeof text === 'string') seen.push({ text, values });
    return original.apply(this, args);
  };
  // The result cache (WD6) would answer a repeated statement without sending it.
  const served = await startOurs({ SVC_WIDGET_CACHE_MS: '0' });
  try {
    const { connection, key } = await configureData(served.url, sourceUrl);
    const queries = JSON.parse(queriesJson.replaceAll('$CONN', connection)) as Record<string, Widget>;
    const statements: Record<string, Captured[]> = {};
    const answers: Record<string, unknown> = {};
    for (const [name, query] of Object.entries(queries)) {
      seen.length = 0;
      const res = await fetch(served.url + QUERY_PATH, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      const body = (await res.json()) as { data?: { result?: unknown } };
      if (res.status !== 200) throw new Error(`capture ${name}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      const mine = seen.filter((s) => s.text.includes(`"${TABLE}"`) && /^\s*select/i.test(s.text));
      if (mine.length === 0) throw new Error(`capture ${name}: no widget statement seen: ${JSON.stringify(seen).slice(0, 500)}`);
      statements[name] = mine;
      answers[name] = body.data?.result;
    }
    process.send!({ statements, answers });
  } finally {
    proto.query = original;
    await served.close();
  }
}

async function captureStatements(
  sourceUrl: string,
  queries: Record<string, Widget>,
): Promise<{ statements: Record<string, Captured[]>; answers: Record<string, unknown> }> {
  const child = fork(fileURLToPath(import.meta.url), ['capture', sourceUrl, JSON.stringify(queries)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: process.execArgv,
  });
  return new Promise((resolve, reject) => {
    let got: { statements: Record<string, Captured[]>; answers: Record<string, unknown> } | null = null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('capture: no answer within 120 s'));
    }, 120_000);
    child.on('message', (msg) => (got = msg as typeof got));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (got) resolve(got);
      else reject(new Error(`capture: exited with code ${code} without the statements`));
    });
  });
}

// ---- child: bare fastify + pg ----

/**
 * POST /api/v1/widget-data/query running the captured statement of `?w=<name>` through a pg.Pool
 * of the connection's default size, answering a value result; with `&at=4`, through one of
 * PARALLEL sessions: as many statements at once as ours runs on a connection (WD4).
 */
async function serveBare(sourceUrl: string, statementsJson: string): Promise<Served> {
  const statements = JSON.parse(statementsJson) as Record<string, Captured[]>;
  const pool = new pg.Pool({ connectionString: sourceUrl, max: POOL });
  const gated = new pg.Pool({ connectionString: sourceUrl, max: PARALLEL });
  return startBare(
    (app) => {
      app.post<{ Querystring: { w: string; at?: string } }>(QUERY_PATH, async (req, reply) => {
        if (!req.headers.authorization) return reply.code(401).send({ error: { code: 'UNAUTHENTICATED' } });
        const s = statements[req.query.w]?.[0];
        if (!s) return reply.code(404).send({ error: { code: 'NOT_FOUND' } });
        const started = performance.now();
        const res = await (req.query.at === String(PARALLEL) ? gated : pool).query(s.text, s.values);
        const raw = res.rows[0]?.wv as unknown;
        const value = raw === null || raw === undefined ? null : Number(raw);
        return { data: { result: { kind: 'value', value }, meta: { exact: true, elapsedMs: Math.round((performance.now() - started) * 10) / 10 } } };
      });
    },
    async () => {
      await pool.end();
      await gated.end();
    },
  );
}

// ---- parent ----

function quantile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

interface Stats {
  mean: number;
  p50: number;
  p95: number;
  max: number;
}

function stats(xs: number[]): Stats {
  const sorted = [...xs].sort((a, b) => a - b);
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), max: sorted[sorted.length - 1]! };
}

interface BatchAnswer {
  data: { results: Array<{ id: string; ok: boolean; meta?: { elapsedMs: number; cached: boolean }; error?: unknown }> };
}

/** One batch through ours: its latency (ms, client side), each widget's meta.elapsedMs and how many came from the result cache. */
async function postBatch(url: string, key: string, body: string): Promise<{ ms: number; widgets: Map<string, number>; cached: number }> {
  const started = performance.now();
  const res = await fetch(url + BATCH_PATH, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${text.slice(0, 300)}`);
  const answer = JSON.parse(text) as BatchAnswer;
  const failed = answer.data.results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`batch: ${failed.length} widgets failed: ${JSON.stringify(failed).slice(0, 500)}`);
  return {
    ms,
    widgets: new Map(answer.data.results.map((r) => [r.id, r.meta!.elapsedMs])),
    cached: answer.data.results.filter((r) => r.meta!.cached).length,
  };
}

/**
 * The batch's baseline: the same widgets' captured statements through a pg.Pool directly, 4
 * widgets at once as the plugin runs them (WD4), each widget's statements one after the other.
 */
async function directBatch(pool: pg.Pool, batch: Array<{ id: string; statements: Captured[] }>): Promise<{ ms: number; widgets: Map<string, number> }> {
  const started = performance.now();
  const widgets = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, batch.length) }, async () => {
      while (next < batch.length) {
        const w = batch[next++]!;
        const t = performance.now();
        for (const s of w.statements) await pool.query(s.text, s.values);
        widgets.set(w.id, performance.now() - t);
      }
    }),
  );
  return { ms: performance.now() - started, widgets };
}

/** `samples` batches through `send`, `connections` at a time (each a loop of sequential requests). */
async function closedLoop(send: () => Promise<{ ms: number }>, samples: number, connections: number): Promise<Stats & { perSecond: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < samples) {
        next++;
        latencies.push((await send()).ms);
      }
    }),
  );
  return { ...stats(latencies), perSecond: latencies.length / ((performance.now() - started) / 1000) };
}

async function parent(): Promise<void> {
  const rows = positiveInt('BENCH_ROWS', 1_000_000);
  const samples = positiveInt('BENCH_SAMPLES', 20);
  const duration = positiveInt('BENCH_DURATION', 5);
  const warmup = positiveInt('BENCH_WARMUP', 5);
  const connections = positiveInt('BENCH_CONNECTIONS', 64);
  const scanConnections = positiveInt('BENCH_SCAN_CONNECTIONS', PARALLEL);
  const scanDuration = positiveInt('BENCH_SCAN_DURATION', Math.max(duration, 10));
  const repeat = positiveInt('BENCH_REPEAT', 1);
  const batchConnections = (process.env.BENCH_BATCH_CONNECTIONS ?? '2,4').split(',').filter(Boolean).map(Number);
  if (batchConnections.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('BENCH_BATCH_CONNECTIONS must be positive integers, comma-separated');
  const only = process.env.BENCH_ONLY ?? '';
  if (!['', 'batch', 'range', 'scan'].includes(only)) throw new Error(`BENCH_ONLY must be batch, range or scan (got "${only}")`);
  if (!(await databaseAvailable('postgres'))) {
    console.log('widgets: PostgreSQL is not reachable: nothing to measure.');
    return;
  }
  console.log(
    `widgets: POST ${BATCH_PATH} (8 widgets) latency, ${samples} requests one at a time (against the same statements through pg) and at ` +
      `${batchConnections.join(', ')} connections; POST ${QUERY_PATH} vs bare fastify + pg (the same statement), ` +
      `range at ${connections} and scan at ${scanConnections} connections, ${warmup} s warm-up + ${duration} s (scan ${scanDuration} s) per run` +
      (repeat > 1 ? `, x${repeat}` : '') +
      `; ${rows} rows`,
  );
  printMachine();
  const sourceUrl = await ensureWidgetTable(rows);
  const doBatch = only === '' || only === 'batch';
  const names = (only === '' ? ['range', 'scan'] : only === 'batch' ? [] : [only]) as Array<'range' | 'scan'>;

  const targets: Target[] = [];
  const direct = new pg.Pool({ connectionString: sourceUrl, max: PARALLEL });
  try {
    // The statements first, from a child of its own that is gone before anything is measured.
    const toCapture: Record<string, Widget> = {};
    if (doBatch) for (const w of benchWidgets('$CONN')) toCapture[`batch:${w.id}`] = w.query;
    const all = singles('$CONN');
    for (const n of names) toCapture[n] = all[n];
    const { statements, answers } = await captureStatements(sourceUrl, toCapture);
    for (const n of names) {
      if (statements[n]!.length !== 1) throw new Error(`${n}: expected one statement, captured ${statements[n]!.length}`);
      console.log(`statement ${n}: ${statements[n]![0]!.text}  ${JSON.stringify(statements[n]![0]!.values)}`);
    }

    // The result cache (WD6) off: every request runs its statements, as the pg side does.
    const ours = await oursTarget('../widgets.ts', ['ours'], { SVC_WIDGET_CACHE_MS: '0' });
    targets.push(ours);
    // BENCH_BEFORE_ENTRY: another build of ours (a copy of build/server made before a change) in the same runs of part 2, as `before`.
    const beforeEntry = process.env.BENCH_BEFORE_ENTRY;
    const before =
      beforeEntry && names.length
        ? await oursTarget('../widgets.ts', ['ours'], { SVC_WIDGET_CACHE_MS: '0' }, { name: 'before', entry: resolvePath(beforeEntry) })
        : null;
    if (before) targets.push(before);
    // The batch as people get it: the result cache on, as `npm start` runs (WD6).
    const cached = doBatch ? await oursTarget('../widgets.ts', ['ours']) : null;
    if (cached) targets.push(cached);
    const bare = names.length ? await forkTarget('bare', '../widgets.ts', ['bare', sourceUrl, JSON.stringify(statements)]) : null;
    if (bare) targets.push(bare);
    console.log(pinCores(targets));
    const { connection, key } = await configureData(ours.url, sourceUrl);
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const beforeData = before ? await configureData(before.url, sourceUrl) : null;

    // ---- 1. the batch ----
    if (doBatch) {
      const batch = benchWidgets(connection);
      const body = JSON.stringify({ queries: batch.map(({ id, query }) => ({ id, query })) });
      const plain = batch.map((w) => ({ id: w.id, statements: statements[`batch:${w.id}`]! }));
      const viaOurs = () => postBatch(ours.url, key, body);
      const viaPg = () => directBatch(direct, plain);
      // Warm: the connection's pool, the schema, PostgreSQL's buffers and plans.
      for (let i = 0; i < 3; i++) {
        await viaOurs();
        await viaPg();
      }
      // One at a time, ours and pg alternating (ABBA per pair of samples), then ours at a few connections.
      const seq = { ours: [] as number[], pg: [] as number[] };
      const widgetMs = { ours: new Map<string, number[]>(), pg: new Map<string, number[]>() };
      const keep = (side: 'ours' | 'pg', r: { ms: number; widgets: Map<string, number> }) => {
        seq[side].push(r.ms);
        for (const [id, ms] of r.widgets) widgetMs[side].set(id, [...(widgetMs[side].get(id) ?? []), ms]);
      };
      const cpuBefore = await ours.cpu();
      for (let i = 0; i < samples; i++) {
        const order: Array<'ours' | 'pg'> = i % 2 === 0 ? ['ours', 'pg'] : ['pg', 'ours'];
        for (const side of order) {
          keep(side, await (side === 'ours' ? viaOurs() : viaPg()));
        }
      }
      // The server idles while pg answers: its CPU over the loop is the batches'.
      const oursCpu = (await ours.cpu()) - cpuBefore;
      const rowsOut: string[][] = [];
      const line = (what: string, n: number, s: Stats, perSecond: number | null, cpuMs: number | null) =>
        rowsOut.push([
          what,
          String(n),
          s.mean.toFixed(1),
          s.p50.toFixed(1),
          s.p95.toFixed(1),
          s.max.toFixed(1),
          perSecond === null ? '' : perSecond.toFixed(2),
          cpuMs === null ? '' : cpuMs.toFixed(1),
        ]);
      line('ours, POST /widget-data/batch', 1, stats(seq.ours), null, oursCpu / samples / 1000);
      line('pg directly, the same statements', 1, stats(seq.pg), null, null);
      for (const n of batchConnections) {
        const c0 = await ours.cpu();
        const r = await closedLoop(viaOurs, samples, n);
        line('ours, POST /widget-data/batch', n, r, r.perSecond, ((await ours.cpu()) - c0) / samples / 1000);
      }
      console.log(`\n1. one batch of 8 widgets, ${samples} requests at each level, result cache off (ms)\n`);
      console.log(table(['through', 'connections', 'mean', 'p50', 'p95', 'max', 'batches/s', 'server CPU ms/batch'], rowsOut));
      console.log('\neach widget, one batch at a time (ours: meta.elapsedMs, the wait for a place, the transaction and the statements; pg: the statements):\n');
      console.log(
        table(
          ['widget', 'ours mean', 'ours p95', 'pg mean', 'pg p95', 'statements'],
          batch.map(({ id }) => {
            const o = stats(widgetMs.ours.get(id)!);
            const p = stats(widgetMs.pg.get(id)!);
            return [id, o.mean.toFixed(1), o.p95.toFixed(1), p.mean.toFixed(1), p.p95.toFixed(1), String(statements[`batch:${id}`]!.length)];
          }),
        ),
      );
      // Warm with the cache on: the first batch computes (and fills the cache), the next ones are repeats within its 10 s.
      const c = await configureData(cached!.url, sourceUrl);
      const cachedBody = JSON.stringify({ queries: benchWidgets(c.connection).map(({ id, query }) => ({ id, query })) });
      const first = await postBatch(cached!.url, c.key, cachedBody);
      const repeats: number[] = [];
      let fromCache = 0;
      for (let i = 0; i < samples; i++) {
        const r = await postBatch(cached!.url, c.key, cachedBody);
        repeats.push(r.ms);
        fromCache += r.cached;
      }
      const w = stats(repeats);
      const o = stats(seq.ours);
      const p = stats(seq.pg);
      const verdict = (s: Stats) => (s.mean < BATCH_GOAL_MS && s.p95 < BATCH_GOAL_MS ? 'MET' : 'NOT MET');
      console.log(
        `\nbatch of 8 widgets, warm (result cache on, the default, WD6; the first batch ${first.ms.toFixed(0)} ms, then ${fromCache} of ${samples * batch.length} widgets from the cache): ` +
          `mean ${w.mean.toFixed(1)} ms, p95 ${w.p95.toFixed(1)} ms (goal < ${BATCH_GOAL_MS} ms) ${verdict(w)}`,
      );
      console.log(
        `batch of 8 widgets, cache off (the statements' own work): mean ${o.mean.toFixed(0)} ms, p95 ${o.p95.toFixed(0)} ms (goal < ${BATCH_GOAL_MS} ms) ${verdict(o)}; ` +
          `the same statements through pg: mean ${p.mean.toFixed(0)} ms, p95 ${p.p95.toFixed(0)} ms (ratio of means pg/ours ${(p.mean / o.mean).toFixed(2)})`,
      );
    }

    // ---- 2. one widget against the same statement through pg ----
    // With BENCH_PROFILE: the requests each server's profile covers (part 2 only; warm-ups too), for bench/lib/profile-diff.ts.
    const served = { ours: 0, bare: 0 };
    const mine = singles(connection);
    for (const name of names) {
      const query = JSON.stringify({ query: mine[name] });
      const bareTarget = bare!;
      // Both answer the same value (and the capture's) before anything is measured.
      const ask = async (t: Target) => {
        const res = await fetch(t === ours ? ours.url + QUERY_PATH : `${t.url}${QUERY_PATH}?w=${name}`, { method: 'POST', headers: auth, body: query });
        const b = (await res.json()) as { data?: { result?: { value?: unknown } } };
        if (res.status !== 200) throw new Error(`${t.name} ${name}: ${res.status} ${JSON.stringify(b).slice(0, 300)}`);
        return b.data?.result?.value;
      };
      const [a, b] = [await ask(ours), await ask(bareTarget)];
      const captured = (answers[name] as { value?: unknown } | undefined)?.value;
      if (a !== b || a !== captured) throw new Error(`${name}: ours answers ${String(a)}, bare ${String(b)}, the capture ${String(captured)}`);
      // The build before answers its own connection's query (its own meta store); the same value.
      const beforeQuery = beforeData ? JSON.stringify({ query: singles(beforeData.connection)[name] }) : '';
      const beforeAuth: Record<string, string> = beforeData ? { authorization: `Bearer ${beforeData.key}`, 'content-type': 'application/json' } : {};
      if (before) {
        const res = await fetch(before.url + QUERY_PATH, { method: 'POST', headers: beforeAuth, body: beforeQuery });
        const v = ((await res.json()) as { data?: { result?: { value?: unknown } } }).data?.result?.value;
        if (res.status !== 200 || v !== a) throw new Error(`before ${name}: ${res.status}, answers ${String(v)} (ours ${String(a)})`);
      }
      const n = name === 'scan' ? scanConnections : connections;
      const seconds = name === 'scan' ? scanDuration : duration;
      const names4 = ['ours', 'bare', ...(n > PARALLEL ? [`bare@${PARALLEL}`] : []), ...(before ? ['before'] : [])];
      const order = [...names4, ...[...names4].reverse()].join('/');
      console.log(`\n2. ${name}: ours and bare both answer ${String(a)}; ${n} connections; order ${order}` + (repeat > 1 ? ` x${repeat}` : ''));
      const contender = (cname: string, t: Target, path: string, body = query, headers: Record<string, string> = auth): Contender => ({
        name: cname,
        load: (s) => load(t, { path, method: 'POST', body, headers }, { connections: n, duration: s }),
      });
      const pair: [Contender, Contender] = [contender('ours', ours, QUERY_PATH), contender('bare', bareTarget, `${QUERY_PATH}?w=${name}`)];
      // range, at more connections than ours runs statements at once: also bare held to ours' PARALLEL (WD4), the route's own cost apart.
      const gated = n > PARALLEL ? contender(`bare@${PARALLEL}`, bareTarget, `${QUERY_PATH}?w=${name}&at=${PARALLEL}`) : null;
      const earlier = before ? contender('before', before, QUERY_PATH, beforeQuery, beforeAuth) : null;
      const contenders = [...pair, ...(gated ? [gated] : []), ...(earlier ? [earlier] : [])];
      const measured = await abba(contenders, { repeat, warmup, duration: seconds });
      if (!gated && !earlier) console.log(pairReport(measured, pair, RATIO_GOAL));
      else {
        const summaries = new Map(contenders.map((c) => [c, { name: c.name, summary: measured.summary(c) }]));
        const o = summaries.get(pair[0])!;
        console.log(`\n${runsTable(measured, contenders)}\n\n${ratioLines(o, summaries.get(pair[1])!, RATIO_GOAL)}`);
        if (gated)
          console.log(
            `\nbare@${PARALLEL}: bare with at most ${PARALLEL} statements at once, as ours runs on a connection (WD4):\n${ratioLines(o, summaries.get(gated)!, null)}`,
          );
        if (earlier) console.log(`\nbefore: the build of BENCH_BEFORE_ENTRY, in the same runs:\n${ratioLines(o, summaries.get(earlier)!, null)}`);
      }
      for (const c of contenders) if (c.name === 'ours' || c.name.startsWith('bare')) served[c.name === 'ours' ? 'ours' : 'bare'] += measured.requests.get(c)!;
    }
    if (process.env.BENCH_PROFILE) {
      mkdirSync(process.env.BENCH_PROFILE, { recursive: true });
      writeFileSync(join(process.env.BENCH_PROFILE, 'requests.json'), JSON.stringify(served));
    }
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    await direct.end();
  }
}

const [kind, ...args] = process.argv.slice(2);
if (kind === 'capture') {
  await capture(args[0]!, args[1]!).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(`widgets capture failed: ${err instanceof Error ? err.stack : String(err)}`);
      process.exit(1);
    },
  );
} else {
  await benchMain('widgets', { ours: () => startOurs(), bare: ([sourceUrl, statements]) => serveBare(sourceUrl!, statements!) }, parent);
}
