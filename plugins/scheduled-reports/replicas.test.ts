import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseAvailable } from '../../test/helpers/databases.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { TestSmtpServer } from '../../test/helpers/smtp.js';
import { connect, dataPermissionPlugins, emptySource, insertPeople, PEOPLE_DDL, people, type Source } from '../exports/testing.js';

const available = await databaseAvailable('postgres');
// One secret: a session cookie signed by one replica is good on the others.
const env = { SVC_SECRET: 'replica-secret-'.padEnd(40, 'x') };

describe.runIf(available)('two replicas sharing a PostgreSQL meta store', () => {
  let a: TestInstance;
  let b: TestInstance;
  let admin: HttpClient;
  let source: Source;
  const smtp = new TestSmtpServer();

  beforeAll(async () => {
    await smtp.start();
    ({ inst: a, admin } = await bootWithAdmin({ meta: 'postgres', env, plugins: dataPermissionPlugins() }));
    b = await startInstance({ metaUrl: a.metaUrl!, env, plugins: dataPermissionPlugins() });
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    source = await emptySource('sqlite');
    await source.exec(PEOPLE_DDL.sqlite);
    await insertPeople(source, people(5));
  }, 60_000);
  afterAll(async () => {
    // b first: a drops the temp database.
    await b?.close();
    await a?.close();
    await source?.cleanup();
    await smtp.stop();
  });

  it('run a report’s due time once, whichever replica’s timer fires first', async () => {
    const connectionId = await connect(admin, source);
    const created = await admin.post('/api/v1/scheduled-reports', {
      name: 'Twice?',
      source: { kind: 'table', connectionId, table: 'people', query: {} },
      format: 'jsonl',
      schedule: { cron: '0 6 * * 1', timeZone: 'America/New_York' },
      recipients: [{ email: 'root@example.com' }],
    });
    expect(created.status, created.text).toBe(201);
    const item = { id: created.body.data.report.id as string, cron: '0 6 * * 1', timeZone: 'America/New_York' };
    // Both replicas list the report (b reads it from the shared store on its next reload).
    await b.app.kernel.schedules.reload();
    const due = Date.UTC(2030, 5, 3, 10);
    const before = smtp.received.length;
    const fired = await Promise.all([a, b, a, b].map((inst) => inst.app.kernel.schedules.fire('report', item, due)));
    const jobs = fired.filter((j) => j !== null);
    expect(jobs).toHaveLength(1);
    expect((await a.app.kernel.jobs.waitFor(jobs[0]!.id, 30_000)).state).toBe('succeeded');
    await smtp.waitFor(before + 1);
    const claims = await a.app.kernel.db.selectFrom('schedule_runs').selectAll().where('owner_kind', '=', 'report').where('owner_id', '=', item.id).execute();
    expect(claims.map((c) => [Number(c.due_at), c.job_id])).toEqual([[due, jobs[0]!.id]]);
    // Whichever ran it, one mail left (and no second one once the job is done).
    const all = await a.app.kernel.db.selectFrom('jobs').select('id').where('kind', '=', 'scheduled-reports.run').execute();
    expect(all).toHaveLength(1);
    expect(smtp.received.length - before).toBe(1);
  });
});
