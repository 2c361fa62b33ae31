/**
 * LLM assist (issue 32 §4): building a run's prompt for 20 tables (`POST /llm/runs`, the schema
 * of 20 tables of 12 columns with foreign keys, and 5 sample rows each) and the diff of a
 * 500-change set (`GET /llm/runs/{id}/diff`: every row read now with the caller's grants and
 * dry-run checked). Goals: prompt under 50 ms, diff under 500 ms. Manual mode, an embedded
 * SQLite source; timings are whole requests on this process's server.
 *
 *   npm run bench -- llm
 *   BENCH_SAMPLES=50 node --no-node-snapshot --import tsx bench/llm.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createApp } from '../kernel/app.js';
import { loadConfig } from '../kernel/config.js';
import { firstPartyPlugins } from '../plugins/index.js';
import { setUpAdmin } from './lib/admin.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const TABLES = 20;
const ROWS = 1000;
const CHANGES = 500;
const PROMPT_GOAL_MS = 50;
const DIFF_GOAL_MS = 500;

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const sourceDir = mkdtempSync(join(tmpdir(), 'svc-bench-src-'));
  const file = join(sourceDir, 'source.db');
  const source = new Database(file);
  for (let i = 0; i < TABLES; i++) {
    const fk = i > 0 ? `, parent_id integer references t_${i - 1} (id)` : '';
    source.exec(
      `create table t_${i} (id integer primary key, name varchar(100) not null, code char(8), price decimal(10,2) not null default 0, qty integer not null default 0, ` +
        `active boolean not null default true, note text, born date, seen datetime, ratio double precision, tags json${fk})`,
    );
  }
  const insert = source.prepare('insert into t_0 (id, name, code, price, qty, note) values (?, ?, ?, ?, ?, ?)');
  source.transaction(() => {
    for (let i = 1; i <= ROWS; i++) insert.run(i, `Item ${i}`, `C${String(i).padStart(7, '0')}`, (i % 100) + 0.5, i % 17, `note ${i}`);
  })();
  for (let t = 1; t < TABLES; t++) source.exec(`insert into t_${t} (id, name) values (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four'), (5, 'five')`);
  source.close();

  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
  const app = await createApp({ config, plugins: firstPartyPlugins });
  try {
    const base = await app.listen();
    const origin = { origin: base, 'content-type': 'application/json' };
    const { cookie } = await setUpAdmin(base);
    const send = async (method: string, path: string, body?: unknown) => {
      const t = process.hrtime.bigint();
      const res = await fetch(base + path, { method, headers: { ...origin, cookie }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      const json = (await res.json()) as { data: Record<string, any> };
      return { json, ms: ms(t) };
    };
    const conn = await send('POST', '/api/v1/connections', { name: 'Bench source', dialect: 'sqlite', url: `sqlite:${file}` });
    const connectionId = conn.json.data.connection.id as string;
    await send('POST', `/api/v1/connections/${connectionId}/introspect`);
    await send('PUT', '/api/v1/llm/config', { mode: 'manual' });
    const tables = Array.from({ length: TABLES }, (_, i) => `t_${i}`);

    const runBody = { request: 'Raise every price by 10 percent and retire the items with no stock', connectionId, tables, includeSampleRows: 5 };
    for (let i = 0; i < 5; i++) await send('POST', '/api/v1/llm/runs', runBody);
    const prompt: number[] = [];
    let chars = 0;
    let runId = '';
    for (let i = 0; i < SAMPLES; i++) {
      const r = await send('POST', '/api/v1/llm/runs', runBody);
      prompt.push(r.ms);
      runId = r.json.data.run.id;
    }
    chars = (await send('GET', `/api/v1/llm/runs/${runId}/prompt`)).json.data.chars;

    const changes = Array.from({ length: CHANGES }, (_, i) =>
      i % 5 === 0
        ? { op: 'insert', table: 't_0', values: { id: ROWS + 1 + i, name: `New ${i}`, price: '1.00' } }
        : i % 5 === 4
          ? { op: 'delete', table: 't_0', key: { id: i + 1 } }
          : { op: 'update', table: 't_0', key: { id: i + 1 }, values: { price: '12.50', qty: i } },
    );
    const answered = await send('POST', `/api/v1/llm/runs/${runId}/response`, { text: '```json\n' + JSON.stringify({ changes }) + '\n```' });
    if (answered.json.data.run.state !== 'parsed') throw new Error(`the change set did not parse: ${JSON.stringify(answered.json.data.run.problems)}`);
    for (let i = 0; i < 3; i++) await send('GET', `/api/v1/llm/runs/${runId}/diff`);
    const diff: number[] = [];
    let summary: unknown = null;
    for (let i = 0; i < Math.max(5, Math.floor(SAMPLES / 3)); i++) {
      const d = await send('GET', `/api/v1/llm/runs/${runId}/diff`);
      diff.push(d.ms);
      summary = d.json.data.diff.summary;
    }

    const line = (name: string, xs: number[]) =>
      `${name.padEnd(22)} median ${percentile(xs, 0.5).toFixed(2).padStart(8)} ms   p95 ${percentile(xs, 0.95).toFixed(2).padStart(8)} ms   max ${Math.max(
        ...xs,
      )
        .toFixed(2)
        .padStart(8)} ms   (${xs.length} samples)`;
    console.log(`LLM assist on an embedded SQLite source: ${TABLES} tables of 12 columns, ${ROWS} rows in t_0`);
    console.log(line('POST /llm/runs (20 t.)', prompt));
    console.log(`  prompt: ${chars} characters with 5 sample rows per table`);
    console.log(line(`GET …/diff (${CHANGES} ch.)`, diff));
    console.log(`  diff summary: ${JSON.stringify(summary)}`);
    const p = percentile(prompt, 0.5);
    const d = percentile(diff, 0.5);
    console.log(`prompt median ${p.toFixed(1)} ms (goal < ${PROMPT_GOAL_MS} ms): ${p < PROMPT_GOAL_MS ? 'MET' : 'NOT MET'}`);
    console.log(`diff median ${d.toFixed(1)} ms (goal < ${DIFF_GOAL_MS} ms): ${d < DIFF_GOAL_MS ? 'MET' : 'NOT MET'}`);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(sourceDir, { recursive: true, force: true });
  }
}

await main();
