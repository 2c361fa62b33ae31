/**
 * Two builds of ours against each other, in one run: this checkout ("ours") and another one
 * ("base", the folder BENCH_BASE names: a `git worktree` of an earlier commit, say, with
 * node_modules). A change worth a few per cent is smaller than the drift between two runs of one
 * build, so it is judged only alternated against the build before it, not against numbers of an
 * earlier run. Measures the public list (bench/public-list.ts's request) and the `/data` list
 * with a key (bench/data-list.ts's, on BENCH_ROWS rows, default 200,000) and `GET /api/v1/healthz`
 * (the answer every request pays for: headers, route wrapper, response check): each build runs from its
 * own sources under tsx (both pay the same for that), forked as that checkout's
 * `bench/public-list.ts ours` and `bench/data-list.ts ours`, in its own process. Order
 * ours/base/base/ours, BENCH_REPEAT times (default 3). Without BENCH_BASE it says so and exits 0.
 *
 *   git worktree add /tmp/base HEAD~3 && ln -s "$PWD/node_modules" /tmp/base/node_modules
 *   BENCH_BASE=/tmp/base node --no-node-snapshot --import tsx bench/builds.ts
 *   BENCH_BASE=/tmp/base BENCH_ONLY=public … | BENCH_ONLY=data … | BENCH_ONLY=healthz …   # one of the three
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTempDatabase, databaseAvailable } from '../test/helpers/databases.js';
import { abba, pairReport, type Contender } from './lib/abba.js';
import { configureData, fillProducts, QUERY, TABLE } from './lib/data-setup.js';
import { positiveInt, printMachine } from './lib/env.js';
import { forkTarget, load, pinCores, type LoadRequest, type Target } from './lib/harness.js';
import { configurePublic, loadPublicFixture, publicRequest } from './lib/public-setup.js';

interface Comparison {
  name: string;
  /** The bench file whose `ours` child mode starts a build, and its arguments. */
  script: string;
  args: (sourceUrl: string) => string[];
  prepare: (sourceUrl: string) => Promise<void>;
  configure: (url: string, sourceUrl: string) => Promise<LoadRequest>;
}

const COMPARISONS: Comparison[] = [
  {
    name: 'public',
    script: 'bench/public-list.ts',
    args: (sourceUrl) => ['ours', sourceUrl],
    prepare: loadPublicFixture,
    configure: async (url, sourceUrl) => publicRequest(await configurePublic(url, sourceUrl)),
  },
  {
    name: 'data',
    script: 'bench/data-list.ts',
    args: () => ['ours'],
    prepare: (sourceUrl) => fillProducts(sourceUrl, positiveInt('BENCH_ROWS', 200_000)),
    configure: async (url, sourceUrl) => {
      const { connection, key } = await configureData(url, sourceUrl);
      return { path: `/api/v1/data/${connection}/${TABLE}${QUERY}`, headers: { authorization: `Bearer ${key}` } };
    },
  },
  {
    name: 'healthz',
    script: 'bench/data-list.ts',
    args: () => ['ours'],
    prepare: async () => undefined,
    configure: async () => ({ path: '/api/v1/healthz' }),
  },
];

async function compare(comparison: Comparison, base: string, opts: { connections: number; repeat: number; warmup: number; duration: number }): Promise<void> {
  const temp = await createTempDatabase('postgres');
  const targets: Target[] = [];
  try {
    await comparison.prepare(temp.url);
    const here = fileURLToPath(new URL('..', import.meta.url));
    for (const [name, root] of [
      ['ours', here],
      ['base', base],
    ] as const) {
      targets.push(await forkTarget(name, resolve(root, comparison.script), comparison.args(temp.url)));
    }
    console.log(`\n${comparison.name}: ${pinCores(targets)}`);
    const contenders: Contender[] = [];
    for (const target of targets) {
      const request = await comparison.configure(target.url, temp.url);
      contenders.push({ name: target.name, load: (seconds) => load(target, request, { connections: opts.connections, duration: seconds }) });
    }
    const measured = await abba(contenders, opts);
    console.log(pairReport(measured, [contenders[0]!, contenders[1]!], null));
  } finally {
    await Promise.all(targets.map((t) => t.stop()));
    await temp.drop().catch(() => undefined);
  }
}

const base = process.env.BENCH_BASE;
if (!base) {
  console.log('builds: set BENCH_BASE to another checkout (with node_modules) to measure this one against it; nothing to measure.');
} else if (!existsSync(resolve(base, 'bench/public-list.ts'))) {
  console.error(`builds: ${base} is not a checkout of this project`);
  process.exit(1);
} else if (!(await databaseAvailable('postgres'))) {
  console.log('builds: PostgreSQL is not reachable: nothing to measure.');
} else {
  const only = process.env.BENCH_ONLY ?? '';
  if (!['', ...COMPARISONS.map((c) => c.name)].includes(only)) throw new Error(`BENCH_ONLY must be public, data or healthz (got "${only}")`);
  const opts = {
    connections: positiveInt('BENCH_CONNECTIONS', 64),
    repeat: positiveInt('BENCH_REPEAT', 3),
    warmup: positiveInt('BENCH_WARMUP', 5),
    duration: positiveInt('BENCH_DURATION', 8),
  };
  console.log(
    `builds: this checkout (ours) against ${base} (base), ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s per run, x${opts.repeat}`,
  );
  printMachine();
  for (const comparison of COMPARISONS) if (!only || only === comparison.name) await compare(comparison, base, opts);
}
