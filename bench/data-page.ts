/**
 * One page of 50 rows at an arbitrary cursor position on a 1,000,000-row PostgreSQL table,
 * through GET /api/v1/data/{connection}/{table} (session, grants, schema, keyset, count off),
 * against the same keyset query sent straight to PostgreSQL in the same run.
 * Goal: median under 10 ms through the API.
 *
 *   npm run bench -- data-page
 *   BENCH_ROWS=1000000 BENCH_SAMPLES=200 node --no-node-snapshot --import tsx bench/data-page.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../kernel/app.js';
import { cursorContext } from '../engine/rows/cursor.js';
import type { Table } from '../engine/schema/model.js';
import { loadConfig } from '../kernel/config.js';
import { firstPartyPlugins } from '../plugins/index.js';
import { createTempDatabase, databaseAvailable } from '../test/helpers/databases.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const GOAL_MS = 10;

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function main(): Promise<void> {
  if (!(await databaseAvailable('postgres'))) return;
  const temp = await createTempDatabase('postgres');
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const client = new pg.Client({ connectionString: temp.url });
  await client.connect();
  let app: Awaited<ReturnType<typeof createApp>> | null = null;
  try {
    process.stdout.write(`filling ${ROWS} rows… `);
    const fill = process.hrtime.bigint();
    await client.query(`create table items (id bigserial primary key, name text not null, price numeric(10,2) not null, created timestamptz not null)`);
    await client.query(
      `insert into items (name, price, created) select 'item ' || g, (g % 1000) / 10.0, timestamptz '2026-01-01' + (g % 5000) * interval '1 minute' from generate_series(1, $1) g`,
      [ROWS],
    );
    await client.query(`create index items_created on items (created, id)`);
    await client.query('analyze items');
    process.stdout.write(`${(ms(fill) / 1000).toFixed(1)} s\n`);

    const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
    app = await createApp({ config, plugins: firstPartyPlugins });
    const base = await app.listen();
    const origin = { origin: base, 'content-type': 'application/json' };
    const setup = await fetch(`${base}/api/v1/setup/super-admin`, {
      method: 'POST',
      headers: origin,
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password', name: 'Bench' }),
    });
    const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!;
    const post = async (path: string, body?: unknown) => {
      const res = await fetch(base + path, { method: 'POST', headers: { ...origin, cookie }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { data: Record<string, any> };
    };
    const connection = (await post('/api/v1/connections', { name: 'bench', dialect: 'postgres', url: temp.url })).data.connection;
    await post(`/api/v1/connections/${connection.id}/introspect`);
    const schema = (await (await fetch(`${base}/api/v1/connections/${connection.id}/schema`, { headers: { cookie } })).json()) as {
      data: { model: { tables: Table[] } };
    };
    const table = schema.data.model.tables.find((t) => t.name === 'items')!;
    const column = (name: string) => table.columns.find((c) => c.name === name)!;
    // Cursors are signed (decisions DA8): the bench signs its random positions as the instance would.
    const signer = app.kernel.signer('data.cursor');
    const get = async (query: string) => {
      const res = await fetch(`${base}/api/v1/data/${connection.id}/items?${query}`, { headers: { cookie } });
      if (!res.ok) throw new Error(`data answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { data: { rows: unknown[]; nextCursor: string | null } };
    };

    const rows: Array<[string, string]> = [];
    for (const [label, sort, sql] of [
      ['by primary key', '', 'select * from items where id > $1 order by id limit 51'],
      ['by -created (ties)', 'sort=-created', 'select * from items where (created, id) < ($1, $2) order by created desc, id desc limit 51'],
    ] as const) {
      // A real cursor from the API, with its keys moved to random positions.
      const first = await get(`limit=50${sort ? `&${sort}` : ''}`);
      const template = JSON.parse(Buffer.from(first.data.nextCursor!.split('.')[0]!, 'base64url').toString('utf8')) as { s: string; k: unknown[] };
      const context = cursorContext(
        table,
        sort
          ? [
              { column: column('created'), desc: true },
              { column: column('id'), desc: true },
            ]
          : [{ column: column('id'), desc: false }],
      );
      const api: number[] = [];
      const direct: number[] = [];
      for (let i = 0; i < SAMPLES + 10; i++) {
        const id = 1 + Math.floor(Math.random() * (ROWS - 100));
        const at = (await client.query<{ created: Date }>('select created from items where id = $1', [id])).rows[0]!.created;
        const keys = sort ? [template.k[0] === null ? null : at.toISOString(), String(id)] : [String(id)];
        const payload = Buffer.from(
          JSON.stringify({ ...template, k: keys.map((k, n) => (typeof template.k[n] === 'number' ? Number(k) : k)) }),
          'utf8',
        ).toString('base64url');
        const cursor = signer.sign(payload, context);
        let t = process.hrtime.bigint();
        const page = await get(`limit=50${sort ? `&${sort}` : ''}&cursor=${cursor}`);
        const apiMs = ms(t);
        if (page.data.rows.length !== 50) throw new Error(`expected 50 rows, got ${page.data.rows.length}`);
        t = process.hrtime.bigint();
        await client.query(sql, sort ? [at, id] : [id]);
        const directMs = ms(t);
        if (i >= 10) {
          api.push(apiMs);
          direct.push(directMs);
        }
      }
      rows.push([
        label,
        `${percentile(api, 0.5).toFixed(2)} ms median, ${percentile(api, 0.95).toFixed(2)} ms p95 | direct ${percentile(direct, 0.5).toFixed(2)} ms median | ${percentile(api, 0.5) < GOAL_MS ? 'MET' : 'NOT MET'} (goal median < ${GOAL_MS} ms)`,
      ]);
    }
    console.log(`\none page of 50 rows at a random cursor, ${ROWS} rows, ${SAMPLES} samples each`);
    for (const [label, line] of rows) console.log(`${label.padEnd(20)} ${line}`);
  } finally {
    await client.end();
    await app?.close();
    await temp.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
