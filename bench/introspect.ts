/**
 * Schema introspection on a large PostgreSQL schema: 1,000 tables of 10 columns (10,000
 * columns, 999 foreign keys, 2,000 indexes), and 100 tables for comparison. The query count
 * must be the same for both (constant, not per table); the time goal is < 3 s for 1,000 tables.
 *
 *   npm run bench -- introspect
 *   node --no-node-snapshot --import tsx bench/introspect.ts
 *   BENCH_TABLES=100,1000,3000 BENCH_REPEAT=3 …   # table counts, timed runs per count
 */
import { cpus, loadavg } from 'node:os';
import { introspect } from '../engine/schema/introspect/index.js';
import { manyTablesSql } from '../test/fixtures/schema/many-tables.js';
import { runScript } from '../test/fixtures/schema/load.js';
import { openDatabase } from '../test/fixtures/schema/open.js';
import { createTempDatabase, databaseAvailable, PG_ADMIN_URL } from '../test/helpers/databases.js';

const GOAL_S = 3;
const COLUMNS = 10;
const SIZES = (process.env.BENCH_TABLES ?? '100,1000').split(',').map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);

interface Result {
  tables: number;
  columns: number;
  queries: number;
  first: number;
  best: number;
}

async function measure(tables: number): Promise<Result> {
  const temp = await createTempDatabase('postgres');
  try {
    await runScript('postgres', temp.url, manyTablesSql('postgres', tables, COLUMNS));
    const db = openDatabase('postgres', temp.url);
    try {
      const times: number[] = [];
      let last: Awaited<ReturnType<typeof introspect>> | undefined;
      // The first run also pays for a cold catalog cache and connection set-up: report it apart.
      for (let i = 0; i < REPEAT + 1; i++) {
        const started = process.hrtime.bigint();
        last = await introspect(db, 'postgres');
        times.push(Number(process.hrtime.bigint() - started) / 1e9);
      }
      if (!last || last.model.tables.length !== tables) throw new Error(`expected ${tables} tables, introspection found ${last?.model.tables.length}`);
      const columns = last.model.tables.reduce((n, t) => n + t.columns.length, 0);
      return { tables, columns, queries: last.queries, first: times[0] ?? 0, best: Math.min(...times.slice(1)) };
    } finally {
      await db.destroy();
    }
  } finally {
    await temp.drop();
  }
}

async function main(): Promise<void> {
  if (!(await databaseAvailable('postgres'))) throw new Error(`PostgreSQL at ${PG_ADMIN_URL} is not reachable (set TEST_PG_URL)`);
  const [load1 = 0] = loadavg();
  console.log(`introspect: PostgreSQL, ${COLUMNS} columns per table, best of ${REPEAT} after a first (cold) run`);
  console.log(`machine: ${cpus().length} cores, node ${process.version}, load average ${load1.toFixed(1)}\n`);

  const results: Result[] = [];
  for (const n of SIZES) results.push(await measure(n));

  const rows = [
    ['tables', 'columns', 'queries', 'first s', 'best s'],
    ...results.map((r) => [r.tables, r.columns, r.queries, r.first.toFixed(3), r.best.toFixed(3)].map(String)),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const r of rows) console.log(r.map((c, i) => c.padStart(widths[i] ?? 0)).join('  '));

  const counts = new Set(results.map((r) => r.queries));
  console.log(`\nquery count independent of table count: ${counts.size === 1 ? 'yes' : 'NO'} (${[...counts].join(', ')})`);
  const big = results.find((r) => r.tables === 1000);
  if (big) console.log(`1,000 tables: ${big.best.toFixed(3)} s (goal < ${GOAL_S} s) ${big.best < GOAL_S ? 'OK' : 'ABOVE GOAL'}`);
  // A count that grows with the schema is a defect, not a slow result.
  if (counts.size !== 1) process.exit(1);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
