import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../kernel/app.js';
import { loadConfig } from '../../kernel/config.js';
import { HttpClient } from '../../test/helpers/client.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { ROOT } from '../../test/helpers/identity.js';
import { firstPartyPlugins } from '../index.js';
import { connect } from '../exports/testing.js';
import { uploadFile } from './testing.js';

const ROWS = 200_000;
const ROOT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('./kill-child.ts', import.meta.url));
const hasPg = await databaseAvailable('postgres');

/** An instance on a given data dir (and so on its SQLite meta store): the same store across processes. */
async function startOn(dataDir: string): Promise<{ app: App; url: string }> {
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
  const app = await createApp({ config, plugins: firstPartyPlugins, jobs: { pollMs: 100, leaseMs: 1000, backoffBaseMs: 100 } });
  return { app, url: await app.listen() };
}

async function count(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query('select count(*) as n from big')).rows[0].n);
  } finally {
    await c.end();
  }
}

describe.each(hasPg ? ['postgres'] : [])('an all-or-nothing import into %s killed mid-way', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-kill-'));
  let temp: TempDatabase;
  afterAll(async () => {
    await temp?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves the table with all rows or none, and the job in a final state', async () => {
    temp = await createTempDatabase('postgres');
    const c = new pg.Client({ connectionString: temp.url });
    await c.connect();
    await c.query('create table big (id integer primary key, name text not null, n integer not null)');
    await c.end();

    // Set up on a first instance: admin, connection, upload, import (not yet run).
    const first = await startOn(dataDir);
    const admin = new HttpClient(first.url);
    const setup = await admin.post('/api/v1/setup/super-admin', ROOT);
    expect(setup.status).toBe(201);
    const userId = setup.body.data.user.id as string;
    const connectionId = await connect(admin, { dialect: 'postgres', url: temp.url } as never);
    const csv = ['id,name,n', ...Array.from({ length: ROWS }, (_, i) => `${i + 1},row ${i + 1},${i}`)].join('\n');
    const up = await uploadFile(first.url, admin, 'big.csv', csv);
    expect(up.status, up.text).toBe(201);
    expect(up.body.data.upload.rowCount).toBe(ROWS);
    const created = await admin.post('/api/v1/imports', {
      uploadId: up.body.data.upload.id,
      connectionId,
      table: 'big',
      mapping: { id: 'id', name: 'name', n: 'n' },
      atomic: true,
      batchSize: 1000,
    });
    expect(created.status, created.text).toBe(201);
    const importId = created.body.data.import.id as string;
    await first.app.close();

    // The child runs it; kill it once a fifth of the rows went through.
    const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', CHILD, dataDir, importId, userId], {
      cwd: ROOT_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    let seen = 0;
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the child never got a fifth through (last total ${seen}): ${stderr}`)), 90_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        const msg = JSON.parse(line) as { run?: number; state?: string; total?: number };
        if (msg.run !== undefined) expect(msg.run).toBe(202);
        seen = msg.total ?? seen;
        if (msg.state === 'running' && seen >= ROWS / 5) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          resolve();
        }
        if (msg.state && msg.state !== 'running' && msg.state !== 'queued') reject(new Error(`finished before the kill: ${line}`));
      });
    });
    await exited;
    expect(seen).toBeLessThan(ROWS);
    // Uncommitted: nothing of it is visible.
    expect(await count(temp.url)).toBe(0);

    // A new instance on the same store takes the job over once its lease ran out.
    const second = await startOn(dataDir);
    try {
      const client = new HttpClient(second.url);
      const session = await second.app.kernel.identity.createSession(userId, { ip: null, userAgent: 'test' });
      client.setCookie('svc_session', second.app.http.signCookie(session.token));
      const before = (await client.get(`/api/v1/imports/${importId}`)).body.data.import;
      const job = await second.app.kernel.jobs.waitFor(before.jobId, 120_000);
      expect(['succeeded', 'failed']).toContain(job.state);
      const after = (await client.get(`/api/v1/imports/${importId}`)).body.data.import;
      const rows = await count(temp.url);
      console.info(`kill test: killed at ${seen} records; job ${job.state} after ${job.attempts} attempts; the table holds ${rows} rows`);
      if (after.state === 'succeeded') {
        expect(job.attempts).toBeGreaterThanOrEqual(2);
        expect(after.counts).toMatchObject({ total: ROWS, inserted: ROWS, refused: 0 });
        expect(rows).toBe(ROWS);
      } else {
        expect(after.state).toBe('failed');
        expect(rows).toBe(0);
      }
    } finally {
      await second.app.close();
    }
  }, 240_000);
});
