/**
 * Peak memory of an all-or-nothing import (issue 12, goal < 200 MB): the server as `npm start`
 * runs it (compiled, in a process of its own: bench/lib/server-process.ts), a CSV of
 * `BENCH_ROWS` rows (default 1,000,000; integer key, text with a comma and quotes, numeric,
 * timestamp, boolean) uploaded through `POST /imports/upload` and imported with `atomic: true`
 * into an empty table, on PostgreSQL (COPY FROM in one transaction) and on SQLite (one
 * transaction of inserts). While the job runs the bench reads the server's VmRSS every 100 ms
 * and also its VmHWM (the kernel's high-water mark, reset just before), and prints the peak, the
 * RSS before the import and the job's time. Numbers only: it never fails on a size.
 *
 *   npm run bench -- import-memory
 *   BENCH_TARGET=sqlite BENCH_ROWS=200000 node --no-node-snapshot --import tsx bench/import-memory.ts
 *   BENCH_FILE_STORE=meta BENCH_ROWS=200000 node --no-node-snapshot --import tsx bench/import-memory.ts   # upload kept in the meta store (K45)
 *   BENCH_NODE_FLAGS="--max-old-space-size=100" npm run bench -- import-memory    # flags added to npm start's
 */
import { createWriteStream, mkdtempSync, openAsBlob, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import Database from 'better-sqlite3';
import pg from 'pg';
import Fastify from 'fastify';
import { openMetaStore } from '../kernel/meta/store.js';
import { SettingsStore } from '../kernel/settings.js';
import { HttpClient } from '../test/helpers/client.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../test/helpers/databases.js';
import { ROOT } from '../test/helpers/identity.js';
import { positiveInt, printMachine } from './lib/env.js';
import { startServerProcess, type ServerProcess } from './lib/server-process.js';
import { jobDone } from './lib/jobs.js';

const ROWS = positiveInt('BENCH_ROWS', 1_000_000);
const TARGETS = (process.env.BENCH_TARGET ?? 'postgres,sqlite').split(',').map((t) => t.trim()) as ('postgres' | 'sqlite')[];
const GOAL_MB = 200;
const MB = 1024 * 1024;
const COLUMNS = ['id', 'name', 'amount', 'created_at', 'flag'];

/** The CSV as COPY … WITH (FORMAT csv, HEADER) would write it. */
async function writeCsv(path: string): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${COLUMNS.join(',')}\n`);
  const base = Date.UTC(2024, 0, 1);
  let chunk = '';
  for (let i = 1; i <= ROWS; i++) {
    const at = new Date(base + i * 1000)
      .toISOString()
      .replace('T', ' ')
      .replace(/\.000Z$/, '');
    chunk += `${i},"name ${i}, ""quoted""",${((i % 100000) / 100).toFixed(2)},${at},${i % 2 === 0 ? 't' : 'f'}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/** VmRSS every 100 ms while `fn` runs, and VmHWM (reset before) at the end. */
async function sampled<T>(srv: ServerProcess, fn: () => Promise<T>): Promise<{ value: T; peak: number; hwm: number; samples: number }> {
  srv.resetPeak();
  let peak = srv.rss();
  let samples = 1;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, srv.rss());
      samples++;
    } catch {
      // the process is gone; fn will say why
    }
  }, 100);
  try {
    const value = await fn();
    peak = Math.max(peak, srv.rss());
    return { value, peak, hwm: srv.peakRss(), samples };
  } finally {
    clearInterval(timer);
  }
}

printMachine();
const dir = mkdtempSync(join(tmpdir(), 'bench-import-mem-'));
const csv = join(dir, 'rows.csv');
const temps: TempDatabase[] = [];
try {
  await writeCsv(csv);
  console.log(`${ROWS.toLocaleString('en')} rows, CSV of ${(statSync(csv).size / MB).toFixed(1)} MB\n`);
  const lines: string[] = [];
  for (const target of TARGETS) {
    let url: string;
    let count: () => Promise<number>;
    if (target === 'postgres') {
      if (!(await databaseAvailable('postgres'))) {
        lines.push('postgres: not reachable, skipped');
        continue;
      }
      const temp = await createTempDatabase('postgres');
      temps.push(temp);
      const c = new pg.Client({ connectionString: temp.url });
      await c.connect();
      await c.query('create table bench_rows (id integer primary key, name text not null, amount numeric(12,2), created_at timestamp, flag boolean not null)');
      await c.end();
      url = temp.url;
      count = async () => {
        const q = new pg.Client({ connectionString: temp.url });
        await q.connect();
        const n = Number((await q.query('select count(*) as n from bench_rows')).rows[0].n);
        await q.end();
        return n;
      };
    } else {
      const file = join(dir, 'target.sqlite');
      const db = new Database(file);
      db.exec('create table bench_rows (id integer primary key, name text not null, amount numeric(12,2), created_at timestamp, flag boolean not null)');
      db.close();
      url = `sqlite:${file}`;
      count = async () => {
        const q = new Database(file, { readonly: true });
        const n = (q.prepare('select count(*) as n from bench_rows').get() as { n: number }).n;
        q.close();
        return n;
      };
    }

    const dataDir = join(dir, `data-${target}`);
    const extraFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
    const fileStore = process.env.BENCH_FILE_STORE;
    const srv = await startServerProcess(
      { SVC_DATA_DIR: dataDir, SVC_NETWORK_FEATURES: 'false', SVC_LOG_LEVEL: 'warn', ...(fileStore ? { SVC_FILE_STORE: fileStore } : {}) },
      { extraFlags },
    );
    try {
      const admin = new HttpClient(srv.url);
      await admin.post('/api/v1/setup/super-admin', ROOT);
      const conn = await admin.post('/api/v1/connections', { name: 'bench', dialect: target, url });
      if (conn.status !== 201) throw new Error(`connection: ${conn.status} ${conn.text}`);
      const connectionId = conn.body.data.connection.id as string;
      await admin.post(`/api/v1/connections/${connectionId}/introspect`);
      // No route sets the upload limit: write the setting into the server's meta store (SQLite, WAL) directly.
      const meta = openMetaStore({ url: null, dataDir, log: Fastify().log });
      await new SettingsStore(meta.db).set('imports', { maxUploadBytes: 4096 * MB });
      await meta.close();

      const form = new FormData();
      form.append('file', await openAsBlob(csv), 'rows.csv');
      const up = await sampled(srv, async () => {
        const res = await fetch(`${srv.url}/api/v1/imports/upload`, {
          method: 'POST',
          body: form,
          headers: { cookie: `svc_session=${admin.cookie('svc_session')}`, origin: srv.url },
        });
        const body = (await res.json()) as { data: { upload: { id: string } } };
        if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
        return body.data.upload.id;
      });
      const mapping = Object.fromEntries(COLUMNS.map((c) => [c, c]));
      const created = await admin.post('/api/v1/imports', { uploadId: up.value, connectionId, table: 'bench_rows', mapping, atomic: true });
      if (created.status !== 201) throw new Error(`import: ${created.status} ${created.text}`);
      const before = srv.rss();
      const run = await sampled(srv, async () => {
        const res = await admin.post(`/api/v1/imports/${created.body.data.import.id}/run`);
        if (res.status !== 202) throw new Error(`run: ${res.status} ${res.text}`);
        return jobDone(admin, res.body.data.import.jobId, 100);
      });
      const n = await count();
      if (n !== ROWS) throw new Error(`${target}: the table holds ${n} rows, not ${ROWS}`);
      const f = (b: number) => (b / MB).toFixed(0).padStart(7);
      lines.push(
        `${target.padEnd(8)}  upload peak ${f(up.peak)}   before run ${f(before)}   run peak ${f(run.peak)} (VmHWM ${f(run.hwm).trim()}, ${run.samples} samples)   job ${(run.value.ms / 1000).toFixed(1)} s   ${run.peak / MB < GOAL_MB ? 'MET' : 'NOT MET'}`,
      );
    } finally {
      await srv.stop();
    }
  }
  console.log('RSS in MB (MiB) of the server process; goal: run peak < 200');
  for (const l of lines) console.log(l);
} finally {
  for (const t of temps) await t.drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
