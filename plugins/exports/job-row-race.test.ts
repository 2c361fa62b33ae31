/**
 * Exports and imports on a PostgreSQL meta store: the job and the row that names it (`job_id`)
 * become visible together (J2). A trigger in the meta store holds the statement that gives the
 * row its job_id until the test lets it go; while it waits, a worker must find no job to claim
 * (before the fix the job was already stored and a worker woken, and it failed
 * EXPORT_NOT_FOUND / IMPORT_NOT_FOUND for good).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { ITEMS_DDL, uploadFile } from '../imports/testing.js';
import { connect, dataPermissionPlugins, emptySource, insertPeople, PEOPLE_DDL, people, type Source } from './testing.js';

const hasPg = await databaseAvailable('postgres');
const LOCK = 7_262_026;

describe.runIf(hasPg)('a job and the row that names it, on a PostgreSQL meta store', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  let meta: pg.Client;
  let holder: pg.Client;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ meta: 'postgres', plugins: dataPermissionPlugins(), jobs: { pollMs: 20 } }));
    source = await emptySource('sqlite');
    await source.exec(`${PEOPLE_DDL.sqlite};\n${ITEMS_DDL.sqlite}`);
    await insertPeople(source, people(5));
    connectionId = await connect(admin, source);
    meta = new pg.Client({ connectionString: inst.metaUrl! });
    holder = new pg.Client({ connectionString: inst.metaUrl! });
    await meta.connect();
    await holder.connect();
    // Any statement that gives an export or an import its job_id waits for the test's lock.
    await meta.query(`create function wait_for_test() returns trigger language plpgsql as $$
      begin perform pg_advisory_xact_lock(${LOCK}); return new; end $$`);
    for (const table of ['exports', 'imports']) {
      await meta.query(`create trigger ${table}_job_id before insert or update on ${table} for each row
        when (new.job_id is not null) execute function wait_for_test()`);
    }
  }, 120_000);
  afterAll(async () => {
    await holder?.end();
    await meta?.end();
    await inst?.close();
    await source?.cleanup();
  });

  /** Holds the lock while `start` runs; once the job_id write waits, no job of `kind` may be visible. */
  async function whileHeld<T>(kind: string, start: () => Promise<T>): Promise<T> {
    await holder.query('select pg_advisory_lock($1)', [LOCK]);
    let pending: Promise<T> | null = null;
    try {
      pending = start();
      pending.catch(() => undefined);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const waiting = await meta.query(`select count(*)::int as n from pg_locks where locktype = 'advisory' and objid = $1 and not granted`, [LOCK]);
        if (waiting.rows[0].n > 0) break;
        if (Date.now() > deadline) throw new Error('the job_id write never came');
        await new Promise((r) => setTimeout(r, 20));
      }
      const jobs = await meta.query(`select id, state, error_code from jobs where kind = $1`, [kind]);
      // Before the fix, a worker claimed it meanwhile; let it finish so the test shows how it ends.
      for (const j of jobs.rows) await inst.app.kernel.jobs.waitFor(j.id, 60_000).catch(() => undefined);
      expect(jobs.rows).toEqual([]);
    } finally {
      await holder.query('select pg_advisory_unlock($1)', [LOCK]);
    }
    return pending!;
  }

  it('an export runs: its job is stored with its row', async () => {
    const res = await whileHeld('export.run', () => admin.post('/api/v1/exports', { connectionId, table: 'people', format: 'csv' }));
    expect(res.status, res.text).toBe(202);
    const job = await inst.app.kernel.jobs.waitFor(res.body.data.export.jobId, 60_000);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect((await admin.get(`/api/v1/exports/${res.body.data.export.id}`)).body.data.export).toMatchObject({ state: 'ready', rowCount: 5 });
  }, 120_000);

  it('an import runs: its job is stored with its job_id and state', async () => {
    const up = await uploadFile(inst.url, admin, 'items.csv', 'id,code,qty\n1,a,1\n2,b,2\n');
    expect(up.status, up.text).toBe(201);
    const created = await admin.post('/api/v1/imports', {
      uploadId: up.body.data.upload.id,
      connectionId,
      table: 'items',
      mapping: { id: 'id', code: 'code', qty: 'qty' },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.import.id as string;
    const run = await whileHeld('import.run', () => admin.post(`/api/v1/imports/${id}/run`));
    expect(run.status, run.text).toBe(202);
    const job = await inst.app.kernel.jobs.waitFor(run.body.data.import.jobId, 60_000);
    expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
    expect((await admin.get(`/api/v1/imports/${id}`)).body.data.import).toMatchObject({ state: 'succeeded', counts: expect.objectContaining({ inserted: 2 }) });
  }, 120_000);
});
