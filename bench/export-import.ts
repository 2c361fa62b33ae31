/**
 * Exports and imports against PostgreSQL's own COPY, in the same run on the same table:
 * - export of N rows to CSV through POST /exports (the export.run job) vs `COPY (…) TO STDOUT`,
 *   goal ≥ 0.5 of COPY's rate, and the server's peak RSS while exporting, goal < 200 MB;
 * - import of that CSV through POST /imports (all or nothing, one transaction) vs `COPY … FROM
 *   STDIN`, goal ≥ 0.3 of COPY's rate.
 * The server runs as `npm start` runs it, in a process of its own (bench/lib/server-process.ts),
 * so its memory is its own. Job times are the job's own (started → finished); the upload (which
 * reads the file once to detect columns and types) is shown apart. Numbers only: it never fails
 * on a timing.
 *
 *   npm run bench -- export-import
 *   BENCH_ROWS=200000 node --no-node-snapshot --import tsx bench/export-import.ts
 *   BENCH_FILE_STORE=meta BENCH_ROWS=200000 node --no-node-snapshot --import tsx bench/export-import.ts   # files in the meta store (K45)
 *   BENCH_FILE_STORE=s3 BENCH_ROWS=200000 node --no-node-snapshot --import tsx bench/export-import.ts     # files in s3rver, run in this process
 */
import { createReadStream, createWriteStream, existsSync, mkdtempSync, openAsBlob, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import Fastify from 'fastify';
import { openMetaStore } from '../kernel/meta/store.js';
import { SettingsStore } from '../kernel/settings.js';
import { HttpClient } from '../test/helpers/client.js';
import { createTempDatabase, databaseAvailable } from '../test/helpers/databases.js';
import { ROOT } from '../test/helpers/identity.js';
import { startServerProcess, type ServerProcess } from './lib/server-process.js';
import { startFakeS3, type FakeS3 } from '../test/helpers/s3.js';
import { jobDone } from './lib/jobs.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const COLUMNS = 'id, name, amount, created_at, flag';
// BENCH_ONLY=import skips our export and imports COPY's own file instead (a quicker loop when working on imports).
const ONLY_IMPORT = process.env.BENCH_ONLY === 'import';
const FILE_STORE = process.env.BENCH_FILE_STORE || null;
let s3: FakeS3 | null = null;
const MB = 1024 * 1024;

if (!(await databaseAvailable('postgres'))) {
  console.log('PostgreSQL is not reachable: nothing to measure.');
  process.exit(0);
}

const temp = await createTempDatabase('postgres');
const dir = mkdtempSync(join(tmpdir(), 'bench-xfer-'));
const client = new pg.Client({ connectionString: temp.url });
await client.connect();

/** The server's peak RSS while `fn` runs (VmHWM, reset before). */
async function peakRss<T>(srv: ServerProcess, fn: () => Promise<T>): Promise<{ value: T; peak: number }> {
  srv.resetPeak();
  const value = await fn();
  return { value, peak: srv.peakRss() };
}

/**
 * The server's memory by kind, sampled every 100 ms while `fn` runs: the highest RSS, anonymous and
 * file-backed seen per stage (`stage()` names the stage of the moment), and the RSS at the start.
 */
async function sampled<T>(srv: ServerProcess, stage: () => string, fn: () => Promise<T>): Promise<{ value: T; summary: string }> {
  const start = srv.memory();
  const peaks = new Map<string, { rss: number; anon: number; file: number }>();
  const sample = () => {
    const m = srv.memory();
    const at = stage();
    const p = peaks.get(at) ?? { rss: 0, anon: 0, file: 0 };
    peaks.set(at, { rss: Math.max(p.rss, m.rss), anon: Math.max(p.anon, m.anon), file: Math.max(p.file, m.file) });
  };
  const timer = setInterval(sample, 100);
  try {
    const value = await fn();
    sample();
    const mb = (n: number) => (n / MB).toFixed(0);
    const parts = [...peaks].map(([at, p]) => `${at}: rss ${mb(p.rss)} (anon ${mb(p.anon)}, file ${mb(p.file)})`);
    return { value, summary: `at start rss ${mb(start.rss)} (anon ${mb(start.anon)}, file ${mb(start.file)}); highest ${parts.join('; ')}` };
  } finally {
    clearInterval(timer);
  }
}

const secs = (ms: number) => (ms / 1000).toFixed(2);
const rate = (ms: number) => Math.round(ROWS / (ms / 1000)).toLocaleString('en');

try {
  const table = (name: string) =>
    `create table ${name} (id integer primary key, name text not null, amount numeric(12,2), created_at timestamp, flag boolean not null)`;
  await client.query(table('bench_rows'));
  await client.query(table('bench_copy'));
  await client.query(table('bench_ours'));
  let t = Date.now();
  await client.query(
    `insert into bench_rows select i, 'name ' || i || ', "quoted"', (i % 100000) / 100.0, timestamp '2024-01-01' + i * interval '1 second', i % 2 = 0 from generate_series(1, $1) i`,
    [ROWS],
  );
  await client.query('analyze bench_rows');
  console.log(`${ROWS.toLocaleString('en')} rows of 5 columns made in ${secs(Date.now() - t)} s; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`);

  // Baseline export: COPY TO STDOUT into a file.
  const copyFile = join(dir, 'copy.csv');
  t = Date.now();
  await pipeline(client.query(copyTo(`copy (select ${COLUMNS} from bench_rows order by id) to stdout with (format csv, header)`)), createWriteStream(copyFile));
  const copyOutMs = Date.now() - t;

  // Ours: the server in its own process, a connection, the export job.
  const dataDir = join(dir, 'data');
  // s3rver runs in this (the bench's) process, so the server's peak RSS is the s3 driver's alone.
  s3 = FILE_STORE === 's3' ? await startFakeS3() : null;
  const storeEnv = s3 ? s3.env : FILE_STORE ? { SVC_FILE_STORE: FILE_STORE } : {};
  const srv = await startServerProcess({ SVC_DATA_DIR: dataDir, SVC_NETWORK_FEATURES: 'false', ...storeEnv });
  console.log(`file store: ${FILE_STORE ?? 'local (default without SVC_META_URL)'}`);
  const url = srv.url;
  try {
    const admin = new HttpClient(url);
    await admin.post('/api/v1/setup/super-admin', ROOT);
    const conn = await admin.post('/api/v1/connections', { name: 'bench', dialect: 'postgres', url: temp.url });
    const connectionId = conn.body.data.connection.id as string;
    await admin.post(`/api/v1/connections/${connectionId}/introspect`);
    const rssBefore = srv.rss();
    const { value: exp, peak } = await peakRss(srv, async () => {
      if (ONLY_IMPORT) return { id: '', rowCount: ROWS, bytes: 0, ms: NaN };
      const res = await admin.post('/api/v1/exports', { connectionId, table: 'bench_rows', format: 'csv' });
      if (res.status !== 202) throw new Error(`export: ${res.status} ${res.text}`);
      const job = await jobDone(admin, res.body.data.export.jobId);
      return { ...(await admin.get(`/api/v1/exports/${res.body.data.export.id}`)).body.data.export, ms: job.ms };
    });
    if (exp.rowCount !== ROWS) throw new Error(`exported ${exp.rowCount} rows`);
    // The file leaves the store as a client downloads it (K45): timed and measured apart.
    const ourFile = ONLY_IMPORT ? copyFile : join(dir, 'ours.csv');
    if (!ONLY_IMPORT) {
      const { value: downloadMs, peak: downloadPeak } = await peakRss(srv, async () => {
        const t0 = Date.now();
        const res = await fetch(`${url}/api/v1/exports/${exp.id}/download`, { headers: { cookie: `svc_session=${admin.cookie('svc_session')}` } });
        if (res.status !== 200 || !res.body) throw new Error(`download: ${res.status}`);
        await pipeline(res.body, createWriteStream(ourFile));
        return Date.now() - t0;
      });
      console.log(`download of the export: ${secs(downloadMs)} s, server peak RSS ${(downloadPeak / MB).toFixed(0)} MB`);
    }

    // Baseline import: COPY FROM STDIN of the same CSV.
    t = Date.now();
    await pipeline(createReadStream(copyFile), client.query(copyFrom(`copy bench_copy (${COLUMNS}) from stdin with (format csv, header)`)));
    const copyInMs = Date.now() - t;

    // Ours: upload our exported file, import it all or nothing.
    // No route sets the upload limit: write the setting into the server's meta store (SQLite, WAL) directly.
    const meta = openMetaStore({ url: null, dataDir, log: Fastify().log });
    await new SettingsStore(meta.db).set('imports', { maxUploadBytes: 4096 * MB });
    await meta.close();
    t = Date.now();
    const form = new FormData();
    form.append('file', await openAsBlob(ourFile), 'bench.csv');
    const { value: up, summary: uploadMemory } = await sampled(
      srv,
      () => 'upload',
      () =>
        fetch(`${url}/api/v1/imports/upload`, { method: 'POST', body: form, headers: { cookie: `svc_session=${admin.cookie('svc_session')}`, origin: url } }),
    );
    const upBody = (await up.json()) as { data: { upload: { id: string; rowCount: number } } };
    if (up.status !== 201) throw new Error(`upload: ${up.status} ${JSON.stringify(upBody)}`);
    const uploadMs = Date.now() - t;
    const mapping = Object.fromEntries(COLUMNS.split(', ').map((c) => [c, c]));
    const created = await admin.post('/api/v1/imports', { uploadId: upBody.data.upload.id, connectionId, table: 'bench_ours', mapping, atomic: true });
    if (created.status !== 201) throw new Error(`import: ${created.status} ${created.text}`);
    // The job copies the upload to a scratch file first (all drivers but local), then makes its report file beside it.
    const work = join(dataDir, 'imports', 'work');
    const importStage = () => (existsSync(work) && readdirSync(work).some((f) => f.endsWith('.errors.csv')) ? 'rows' : 'copy');
    const {
      value: { value: imp, peak: importPeak },
      summary: importMemory,
    } = await sampled(srv, importStage, () =>
      peakRss(srv, async () => {
        const run = await admin.post(`/api/v1/imports/${created.body.data.import.id}/run`);
        const job = await jobDone(admin, run.body.data.import.jobId);
        return { ...(await admin.get(`/api/v1/imports/${created.body.data.import.id}`)).body.data.import, ms: job.ms };
      }),
    );
    if (imp.counts.inserted !== ROWS) throw new Error(`imported ${JSON.stringify(imp.counts)}`);
    const same = await client.query('select count(*) as n from bench_ours o join bench_copy c using (id) where o is not distinct from c');
    if (Number(same.rows[0].n) !== ROWS) throw new Error(`the imported rows differ from COPY's: ${same.rows[0].n} equal`);

    const exportRatio = copyOutMs / exp.ms;
    const importRatio = copyInMs / imp.ms;
    console.log('');
    console.log('what                         time s   rows/s        file MB   peak RSS MB');
    console.log(
      `export  COPY TO STDOUT      ${secs(copyOutMs).padStart(7)}  ${rate(copyOutMs).padStart(11)}  ${(statSync(copyFile).size / MB).toFixed(1).padStart(8)}`,
    );
    if (!ONLY_IMPORT)
      console.log(
        `export  POST /exports (csv) ${secs(exp.ms).padStart(7)}  ${rate(exp.ms).padStart(11)}  ${(exp.bytes / MB).toFixed(1).padStart(8)}  ${(peak / MB).toFixed(0).padStart(11)} (idle: ${(rssBefore / MB).toFixed(0)})`,
      );
    console.log(`import  COPY FROM STDIN     ${secs(copyInMs).padStart(7)}  ${rate(copyInMs).padStart(11)}`);
    console.log(`import  upload + scan       ${secs(uploadMs).padStart(7)}  ${rate(uploadMs).padStart(11)}`);
    console.log(
      `import  POST /imports/run   ${secs(imp.ms).padStart(7)}  ${rate(imp.ms).padStart(11)}  ${''.padStart(8)}  ${(importPeak / MB).toFixed(0).padStart(11)}`,
    );
    console.log('');
    console.log(`server memory, MB (smaps_rollup every 100 ms): upload ${uploadMemory}`);
    console.log(`  import run ${importMemory}`);
    if (!ONLY_IMPORT) console.log(`export ratio (ours / COPY rate): ${exportRatio.toFixed(2)}  goal ≥ 0.5 ${exportRatio >= 0.5 ? 'met' : 'NOT met'}`);
    if (!ONLY_IMPORT) console.log(`export peak RSS of the server: ${(peak / MB).toFixed(0)} MB  goal < 200 MB ${peak < 200 * MB ? 'met' : 'NOT met'}`);
    console.log(`import ratio (ours / COPY rate): ${importRatio.toFixed(2)}  goal ≥ 0.3 ${importRatio >= 0.3 ? 'met' : 'NOT met'}`);
  } finally {
    await srv.stop();
  }
} finally {
  await s3?.close();
  await client.end();
  await temp.drop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
