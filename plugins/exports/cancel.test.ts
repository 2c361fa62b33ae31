import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureDialect } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { EXPORTS_PREFIX } from './files.js';
import { connect, dataPermissionPlugins, emptySource, PEOPLE_DDL, type Source } from './testing.js';

const dialects: FixtureDialect[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

const ROWS = 300_000;

/** ROWS rows made by the database itself (a recursive series), quickly. */
const FILL: Record<FixtureDialect, string> = {
  postgres: `insert into people (id, name, score, active, note) select i, 'name ' || i, i / 100.0, i % 2 = 0, 'note, "quoted" ' || i from generate_series(1, ${ROWS}) i`,
  mysql: `insert into people (id, name, score, active, note) with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS}) select i, concat('name ', i), i / 100.0, i % 2, concat('note, "quoted" ', i) from s`,
  sqlite: `insert into people (id, name, score, active, note) with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS}) select i, 'name ' || i, i / 100.0, i % 2, 'note, "quoted" ' || i from s`,
};

describe.each(dialects)('cancelling a running export on %s', (dialect) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: { pollMs: 20, progressThrottleMs: 0 } }));
    source = await emptySource(dialect);
    await source.exec(PEOPLE_DDL[dialect]);
    await source
      .db()
      .connection()
      .execute(async (db) => {
        // MariaDB stops a recursive query after 1000 rounds by default.
        if (dialect === 'mysql') await sql.raw('set session max_recursive_iterations = 1000000').execute(db);
        await sql.raw(FILL[dialect]).execute(db);
      });
    connectionId = await connect(admin, source);
  }, 120_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it.each(['csv', 'jsonl', 'xlsx'])(
    'stops a %s export mid-way, leaves no file and keeps the source usable',
    async (format) => {
      const res = await call(inst, admin, 'POST', '/api/v1/exports', { connectionId, table: 'people', format });
      expect(res.status, res.text).toBe(202);
      const { id, jobId } = res.body.data.export;

      // Cancel once rows have started to arrive, before the end.
      let progress = 0;
      for (let i = 0; i < 2000 && !(progress > 0); i++) {
        const job = await admin.get(`/api/v1/jobs/${jobId}`);
        progress = job.body.data.job.progress ?? 0;
        if (job.body.data.job.state !== 'running' && job.body.data.job.state !== 'queued') break;
        if (!(progress > 0)) await new Promise((r) => setTimeout(r, 5));
      }
      expect(progress).toBeGreaterThan(0);
      expect(progress).toBeLessThan(1);
      const cancel = await admin.post(`/api/v1/jobs/${jobId}/cancel`);
      expect(cancel.status, cancel.text).toBe(200);

      const job = await inst.app.kernel.jobs.waitFor(jobId, 20_000);
      expect(job.state).toBe('cancelled');
      const exp = await call(inst, admin, 'GET', `/api/v1/exports/${id}`);
      expect(exp.body.data.export).toMatchObject({ state: 'cancelled', bytes: null });
      const download = await admin.get(`/api/v1/exports/${id}/download`);
      expect(download.status).toBe(409);
      expect(await inst.app.kernel.files.list(`${EXPORTS_PREFIX}${id}/`)).toEqual([]);

      if (dialect === 'postgres') {
        // The connection that was reading is not left inside its transaction or its COPY. Only
        // this test's database counts (other test files run at the same time on the same server),
        // and the pool may still be closing it just after the job turned cancelled: a stuck one stays.
        const stuckNow = async () =>
          Number(
            (
              await sql<{ n: string }>`select count(*) as n from pg_stat_activity
              where datname = current_database() and application_name = 'svc-admin' and state like 'idle in transaction%'`.execute(source.db())
            ).rows[0]!.n,
          );
        let stuck = await stuckNow();
        for (let i = 0; i < 40 && stuck > 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          stuck = await stuckNow();
        }
        expect(stuck).toBe(0);
      }
      // The source's pool still serves: a small export after it completes.
      const after = await call(inst, admin, 'POST', '/api/v1/exports', { connectionId, table: 'people', format, filter: { id: { lte: 10 } } });
      expect(after.status).toBe(202);
      const done = await inst.app.kernel.jobs.waitFor(after.body.data.export.jobId, 20_000);
      expect(done.state).toBe('succeeded');
      const ready = await call(inst, admin, 'GET', `/api/v1/exports/${after.body.data.export.id}`);
      expect(ready.body.data.export).toMatchObject({ state: 'ready', rowCount: 10 });
    },
    60_000,
  );
});
