/**
 * GET /api/v1/search on an instance holding 1,000 pages, 100 tables (a SQLite connection) and
 * 10,000 users, by an admin (every type), with typo'd, prefix and whole-word queries; GET /healthz
 * sampled the same way in the same run as the baseline. Goal (issue 28): p95 under 50 ms.
 * Rows are not searched here (no page is `searchable`): this measures the names index.
 *
 *   npm run bench -- search
 *   BENCH_SAMPLES=500 node --no-node-snapshot --import tsx bench/search.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createApp } from '../kernel/app.js';
import { loadConfig } from '../kernel/config.js';
import { newId } from '../kernel/ids.js';
import { firstPartyPlugins } from '../plugins/index.js';
import { setUpAdmin } from './lib/admin.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const USERS = Number(process.env.BENCH_USERS ?? 10_000);
const PAGES = Number(process.env.BENCH_PAGES ?? 1_000);
const TABLES = Number(process.env.BENCH_TABLES ?? 100);
const GOAL_MS = 50;

const FIRST = ['Margaret', 'John', 'Amelia', 'Oliver', 'Sofia', 'Liam', 'Hannah', 'Noah', 'Clara', 'Ethan', 'Greta', 'Lucas'];
const LAST = ['Thornbury', 'Smith', 'Okafor', 'Nguyen', 'Schmidt', 'Rossi', 'Garcia', 'Kowalski', 'Dubois', 'Larsen', 'Tanaka', 'Silva'];
const WORDS = ['revenue', 'orders', 'inventory', 'customers', 'shipping', 'returns', 'invoices', 'suppliers', 'warehouse', 'payroll'];
const QUERIES = ['margret', 'thornbry', 'john smi', 'invntory', 'ord', 'customers', 'warehuose 12', 'sofia', 'payrol', 'table_42', 'smtp', 'x'];

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  // Not in the data directory: the service refuses its own files as connections.
  const sourceDir = mkdtempSync(join(tmpdir(), 'svc-bench-src-'));
  const file = join(sourceDir, 'source.db');
  const source = new Database(file);
  for (let i = 0; i < TABLES; i++) source.exec(`create table table_${i} (id integer primary key, name text not null, note text)`);
  source.close();
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
  const app = await createApp({ config, plugins: firstPartyPlugins });
  try {
    const base = await app.listen();
    const origin = { origin: base, 'content-type': 'application/json' };
    const { cookie } = await setUpAdmin(base);
    const post = async (path: string, body?: unknown) => {
      const res = await fetch(base + path, { method: 'POST', headers: { ...origin, cookie }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { data: Record<string, any> };
    };
    const conn = await post('/api/v1/connections', { name: 'Bench source', dialect: 'sqlite', url: `sqlite:${file}` });
    const connectionId = conn.data.connection.id as string;
    await post(`/api/v1/connections/${connectionId}/introspect`);

    process.stdout.write(`filling ${USERS} users and ${PAGES} pages… `);
    const fill = process.hrtime.bigint();
    const db = app.kernel.db;
    for (let i = 0; i < USERS; i += 500) {
      const now = Date.now();
      const rows = Array.from({ length: Math.min(500, USERS - i) }, (_, j) => {
        const n = i + j;
        return {
          id: newId(now),
          email: `user${n}@example.com`,
          name: `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / FIRST.length) % LAST.length]} ${n}`,
          status: 'active' as const,
          password_hash: null,
          totp_enabled: 0,
          last_login_at: null,
          created_at: now,
          updated_at: now,
        };
      });
      await db.insertInto('users').values(rows).execute();
    }
    for (let i = 0; i < PAGES; i++) {
      const table = i % 2 === 0 ? { kind: 'list', connectionId, table: `table_${i % TABLES}` } : { kind: 'dashboard' };
      await post('/api/v1/pages', { title: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${i}`, ...table });
    }
    process.stdout.write(`${(ms(fill) / 1000).toFixed(1)} s\n`);

    const get = async (path: string) => {
      const t = process.hrtime.bigint();
      const res = await fetch(base + path, { headers: { cookie } });
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      return ms(t);
    };
    const first = await get(`/api/v1/search?q=margret`);
    console.log(`first search (builds the index): ${first.toFixed(1)} ms`);
    for (let i = 0; i < 30; i++) await get(`/api/v1/search?q=${encodeURIComponent(QUERIES[i % QUERIES.length]!)}`);
    const search: number[] = [];
    const health: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      search.push(await get(`/api/v1/search?q=${encodeURIComponent(QUERIES[i % QUERIES.length]!)}`));
      health.push(await get('/api/v1/healthz'));
    }
    const line = (name: string, xs: number[]) =>
      `${name.padEnd(8)} median ${percentile(xs, 0.5).toFixed(2).padStart(7)} ms   p95 ${percentile(xs, 0.95).toFixed(2).padStart(7)} ms   max ${Math.max(...xs)
        .toFixed(2)
        .padStart(7)} ms`;
    console.log(`GET /search on ${USERS} users, ${PAGES} pages, ${TABLES} tables; ${SAMPLES} samples each, alternated`);
    console.log(line('search', search));
    console.log(line('healthz', health));
    const p95 = percentile(search, 0.95);
    console.log(`search p95 ${p95.toFixed(1)} ms (goal < ${GOAL_MS} ms): ${p95 < GOAL_MS ? 'MET' : 'NOT MET'}`);
    console.log(`heap used after: ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB (the server runs in this process)`);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(sourceDir, { recursive: true, force: true });
  }
}

await main();
