import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureDialect } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { connect, dataPermissionPlugins, emptySource, type Source } from '../exports/testing.js';
import { uploadFile } from './testing.js';

const dialects: FixtureDialect[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

const ROWS = 200_000;
const BATCH = 1000;
const CSV = ['id,name,n', ...Array.from({ length: ROWS }, (_, i) => `${i + 1},"row, ${i + 1}",${i}`)].join('\n');

describe.each(dialects)('cancelling a running import on %s', (dialect) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  let uploadId: string;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: { pollMs: 20, progressThrottleMs: 0 } }));
    source = await emptySource(dialect);
    await source.exec('create table big (id integer primary key not null, name varchar(40) not null, n integer not null)');
    connectionId = await connect(admin, source);
    const up = await uploadFile(inst.url, admin, 'big.csv', CSV);
    expect(up.status, up.text).toBe(201);
    uploadId = up.body.data.upload.id;
  }, 120_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  const rowsInTable = async () => Number((await sql<{ n: unknown }>`select count(*) as n from big`.execute(source.db())).rows[0]!.n);

  /** Runs an import and cancels it once some rows went through; answers the import as it ended. */
  async function runAndCancel(atomic: boolean): Promise<any> {
    await sql`delete from big`.execute(source.db());
    const created = await admin.post('/api/v1/imports', {
      uploadId,
      connectionId,
      table: 'big',
      mapping: { id: 'id', name: 'name', n: 'n' },
      atomic,
      batchSize: BATCH,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.import.id as string;
    const run = await admin.post(`/api/v1/imports/${id}/run`);
    expect(run.status, run.text).toBe(202);
    const jobId = run.body.data.import.jobId as string;
    let progress = 0;
    for (let i = 0; i < 4000 && !(progress > 0); i++) {
      const job = (await admin.get(`/api/v1/jobs/${jobId}`)).body.data.job;
      progress = job.progress ?? 0;
      if (job.state !== 'running' && job.state !== 'queued') break;
      if (!(progress > 0)) await new Promise((r) => setTimeout(r, 5));
    }
    expect(progress).toBeGreaterThan(0);
    expect(progress).toBeLessThan(1);
    const cancel = await admin.post(`/api/v1/jobs/${jobId}/cancel`);
    expect(cancel.status, cancel.text).toBe(200);
    const job = await inst.app.kernel.jobs.waitFor(jobId, 60_000);
    expect(job.state).toBe('cancelled');
    return (await admin.get(`/api/v1/imports/${id}`)).body.data.import;
  }

  it('all or nothing: the table holds none of the rows', async () => {
    const imp = await runAndCancel(true);
    expect(imp.state).toBe('cancelled');
    expect(await rowsInTable()).toBe(0);
  }, 90_000);

  it('in batches: the table holds exactly the committed batches, as the import says', async () => {
    const imp = await runAndCancel(false);
    expect(imp.state).toBe('cancelled');
    const rows = await rowsInTable();
    expect(rows).toBeLessThan(ROWS);
    expect(rows % BATCH).toBe(0);
    expect(imp.counts.inserted).toBe(rows);
    // And the source still serves writes afterwards: the connection was not left inside a transaction.
    await sql`insert into big (id, name, n) values (${ROWS + 1}, 'after', 0)`.execute(source.db());
    expect(await rowsInTable()).toBe(rows + 1);
  }, 90_000);
});
