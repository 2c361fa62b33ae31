/**
 * A public list of 20 rows (GET /api/v1/public/records/items with a server key) on our real
 * instance against a bare fastify + pg handler running the same query on the same PostgreSQL
 * table, in the same run. Ours pays for everything a public request does: the gate (switch,
 * per-address limit, NUL check, key lookup in the meta store), the endpoint and its limits, the
 * default filter, keyset paging, the row codec and the contract's response check. Goal: ours
 * answers >= 0.8 of bare's requests per second (issue 12; 0.7 before).
 *
 * Each server runs in its own process, autocannon here: ours as `npm start` runs it (the compiled
 * build with npm start's node flags; from the sources under tsx, this file forked with `ours`,
 * when profiling or with BENCH_OURS=source), bare as this file forked with `bare`. Order
 * ours/bare/bare/ours, each measured run after a 5 s warm-up (a server in production runs warm).
 * Every request comes from another address (X-Forwarded-For, the instance trusts the proxy)
 * and cycles through 8 server keys, so the per-address and per-key limits measure their cost
 * without refusing the load.
 *
 *   npm run bench -- public-list
 *   BENCH_DURATION=10 BENCH_CONNECTIONS=64 BENCH_REPEAT=2 node --no-node-snapshot --import tsx bench/public-list.ts
 *   BENCH_PROFILE=/tmp/prof npm run bench -- public-list    # CPU profiles of both servers under load
 *   BENCH_WARMUP=1 npm run bench -- public-list             # seconds of warm-up before each run (default 5)
 *   BENCH_PROFILE=/tmp/prof BENCH_HEAP=1 npm run bench -- public-list   # sampled allocations instead of CPU
 *   BENCH_BARE_PREPARED=1 npm run bench -- public-list      # bare names its statement as ours does (K42)
 *   node --import tsx bench/lib/profile-diff.ts /tmp/prof   # where ours spends more than bare, per request
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { DEFAULT_SOURCE_SETTINGS } from '../engine/sources/types.js';
import { createTempDatabase, databaseAvailable } from '../test/helpers/databases.js';
import { abba, pairReport, type Contender } from './lib/abba.js';
import { benchMain, startBare, startOurs, type Served } from './lib/child.js';
import { positiveInt, printMachine } from './lib/env.js';
import { forkTarget, load, oursTarget, pinCores, type Target } from './lib/harness.js';
import { configurePublic, loadPublicFixture, PUBLIC_ENV, PUBLIC_PATH, publicRequest } from './lib/public-setup.js';

const PATH = PUBLIC_PATH;
const GOAL = 0.8;
/** Both sides get the pool size a connection gets by default (engine/sources DEFAULT_SOURCE_SETTINGS). */
const POOL = DEFAULT_SOURCE_SETTINGS.poolSize;

// ---- child: one server, told which kind by argv ----

/** The same SELECT ours runs for the page (newest key first, one row more to know a next page exists). */
const LIST_SQL =
  'select "id" as c0, "name" as c1, "sku" as c2, cast("price" as text) as c3, "published" as c4 from "products" where "published" = $1 order by "id" desc limit 21';

/** With BENCH_BARE_PREPARED=1 bare names its statement too, as ours does (decisions K42): the baseline a tuned handler sets. */
async function serveBare(sourceUrl: string): Promise<Served> {
  const prepared = process.env.BENCH_BARE_PREPARED === '1';
  const pool = new pg.Pool({ connectionString: sourceUrl, max: POOL });
  return startBare(
    (app) => {
      app.get(PATH, async (req, reply) => {
        if (!req.headers.authorization) return reply.code(401).send({ error: { code: 'PUBLIC_KEY_INVALID' } });
        const res = prepared ? await pool.query({ name: 'bare_list', text: LIST_SQL, values: [true] }) : await pool.query(LIST_SQL, [true]);
        const rows = res.rows.slice(0, 20).map((r) => ({ id: r.c0, name: r.c1, sku: r.c2, price: r.c3, published: r.c4 }));
        const cursor = res.rows.length > 20 ? Buffer.from(JSON.stringify({ s: '', k: [rows[19]!.id] })).toString('base64url') : null;
        return { data: rows, page: { limit: 20, count: rows.length }, cursor };
      });
    },
    () => pool.end(),
  );
}

// ---- parent: set up, load, report ----

async function firstPage(target: Target, key: string): Promise<unknown> {
  const res = await fetch(target.url + PATH, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5_000) });
  const body = (await res.json()) as { data?: unknown[] };
  if (res.status !== 200 || !Array.isArray(body.data) || body.data.length !== 20)
    throw new Error(`${target.name}: unexpected answer ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.data;
}

async function parent(): Promise<void> {
  const duration = positiveInt('BENCH_DURATION', 5);
  const connections = positiveInt('BENCH_CONNECTIONS', 64);
  const repeat = positiveInt('BENCH_REPEAT', 1);
  // 1 s leaves ours' first run still warming up (JIT under tsx); a longer one measures the warm server.
  const warmup = positiveInt('BENCH_WARMUP', 5);
  if (!(await databaseAvailable('postgres'))) {
    console.log('public-list: PostgreSQL is not reachable: nothing to measure.');
    return;
  }
  console.log(
    `public-list: GET ${PATH} (20 rows), ${connections} connections, ${warmup} s warm-up + ${duration} s per run, order ours/bare/bare/ours` +
      (repeat > 1 ? ` x${repeat}` : ''),
  );
  printMachine();

  const temp = await createTempDatabase('postgres');
  const targets: Target[] = [];
  try {
    await loadPublicFixture(temp.url);
    const ours = await oursTarget('../public-list.ts', ['ours', temp.url], PUBLIC_ENV);
    targets.push(ours);
    const bare = await forkTarget('bare', '../public-list.ts', ['bare', temp.url]);
    targets.push(bare);
    console.log(pinCores(targets));
    const keys = await configurePublic(ours.url, temp.url);
    const [oursPage, barePage] = [await firstPage(ours, keys[0]!), await firstPage(bare, keys[0]!)];
    if (JSON.stringify(oursPage) !== JSON.stringify(barePage))
      throw new Error(`the two pages differ:\n${JSON.stringify(oursPage).slice(0, 300)}\n${JSON.stringify(barePage).slice(0, 300)}`);

    const contenders: Contender[] = [ours, bare].map((target) => ({
      name: target.name,
      load: (seconds: number) => load(target, publicRequest(keys), { connections, duration: seconds }),
    }));
    const measured = await abba(contenders, { repeat, warmup, duration });
    if (process.env.BENCH_PROFILE) {
      // Every request a profile covers (warm-ups too), so bench/lib/profile-diff.ts can put its figures per request.
      mkdirSync(process.env.BENCH_PROFILE, { recursive: true });
      writeFileSync(join(process.env.BENCH_PROFILE, 'requests.json'), JSON.stringify(Object.fromEntries([...measured.requests].map(([c, n]) => [c.name, n]))));
    }
    console.log(pairReport(measured, [contenders[0]!, contenders[1]!], GOAL));
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    await temp.drop().catch(() => undefined);
  }
}

await benchMain('public-list', { ours: () => startOurs(PUBLIC_ENV), bare: ([sourceUrl]) => serveBare(sourceUrl!) }, parent);
