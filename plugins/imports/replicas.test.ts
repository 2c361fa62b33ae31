import { randomBytes } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { connect, dataPermissionPlugins, emptySource, insertPeople, PEOPLE_DDL, people, type Source } from '../exports/testing.js';
import { importItemsWithOneRefusal, ITEMS_DDL } from './testing.js';

const available = await databaseAvailable('postgres');

/**
 * Two replicas on one PostgreSQL meta store, sharing nothing else (K45: the file store is the
 * meta store itself). A runs no jobs, so every job runs on B: a file one replica took is read by
 * the other.
 */
describe.runIf(available)('imports and exports across replicas on a PostgreSQL meta store', () => {
  const env = { SVC_SECRET: randomBytes(32).toString('hex') };
  const jobs = { pollMs: 50, progressThrottleMs: 0, backoffBaseMs: 50 };
  let a: TestInstance;
  let b: TestInstance;
  let adminOnA: HttpClient;
  let adminOnB: HttpClient;
  let source: Source;
  let connectionId: string;

  beforeAll(async () => {
    ({ inst: a, admin: adminOnA } = await bootWithAdmin({ meta: 'postgres', plugins: dataPermissionPlugins(), env, jobs: { ...jobs, workers: 0 } }));
    b = await startInstance({ metaUrl: a.metaUrl!, plugins: dataPermissionPlugins(), env, jobs });
    expect(a.app.kernel.files.driver).toBe('meta');
    adminOnB = b.client();
    adminOnB.setCookie('svc_session', adminOnA.cookie('svc_session')!);
    source = await emptySource('postgres');
    await source.exec(ITEMS_DDL.postgres);
    await source.exec(PEOPLE_DDL.postgres);
    await insertPeople(source, people(500));
    connectionId = await connect(adminOnA, source);
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await source?.cleanup();
  });

  it('imports on B a file uploaded on A, and A serves the error report B wrote', () =>
    importItemsWithOneRefusal(connectionId, {
      upload: { inst: a, client: adminOnA },
      run: { inst: b, client: adminOnB },
      read: { inst: a, client: adminOnA },
    }));

  it('downloads on A an export B wrote, and on B one asked for on A', async () => {
    const onB = await call(b, adminOnB, 'POST', '/api/v1/exports', { connectionId, table: 'people', format: 'csv' });
    expect(onB.status, onB.text).toBe(202);
    const onA = await call(a, adminOnA, 'POST', '/api/v1/exports', { connectionId, table: 'people', format: 'jsonl' });
    expect(onA.status, onA.text).toBe(202);
    for (const e of [onB, onA]) expect((await b.app.kernel.jobs.waitFor(e.body.data.export.jobId, 60_000)).state).toBe('succeeded');

    const csv = await adminOnA.get(`/api/v1/exports/${onB.body.data.export.id}/download`);
    expect(csv.status, csv.text).toBe(200);
    expect((parseCsv(csv.text) as string[][]).length).toBe(501);
    const jsonl = await adminOnB.get(`/api/v1/exports/${onA.body.data.export.id}/download`);
    expect(jsonl.status, jsonl.text).toBe(200);
    expect(jsonl.text.trim().split('\n').length).toBe(500);
  });
});
