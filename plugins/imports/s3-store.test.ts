import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Blobs } from '../../kernel/files/s3.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { startFakeS3, type FakeS3 } from '../../test/helpers/s3.js';
import { connect, dataPermissionPlugins, emptySource, insertPeople, PEOPLE_DDL, people, type Source } from '../exports/testing.js';
import { importItemsWithOneRefusal, ITEMS_DDL } from './testing.js';

/** An instance started with SVC_FILE_STORE=s3 against s3rver: an upload is imported and an export downloaded over HTTP. */
describe('imports and exports on the s3 file store', () => {
  let s3: FakeS3;
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  const objects = async () => {
    const res = await new S3Blobs(s3.config).client.send(new ListObjectsV2Command({ Bucket: s3.config.bucket, Prefix: s3.config.prefix }));
    return (res.Contents ?? []).map((o) => o.Key!);
  };

  beforeAll(async () => {
    s3 = await startFakeS3();
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), env: s3.env, jobs: { pollMs: 50, progressThrottleMs: 0, backoffBaseMs: 50 } }));
    expect(inst.app.kernel.files.driver).toBe('s3');
    source = await emptySource('sqlite');
    await source.exec(ITEMS_DDL.sqlite);
    await source.exec(PEOPLE_DDL.sqlite);
    await insertPeople(source, people(300));
    connectionId = await connect(admin, source);
  }, 120_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
    await s3?.close();
  });

  it('keeps an upload in the bucket and imports it, with its error report', async () => {
    const on = { inst, client: admin };
    await importItemsWithOneRefusal(connectionId, { upload: on, run: on, read: on }, async () => {
      expect((await objects()).length).toBeGreaterThanOrEqual(1);
      // Nothing went to the local folder.
      const localDir = join(inst.dataDir, 'files');
      expect(existsSync(localDir) ? readdirSync(localDir) : []).toEqual([]);
    });
  });

  it('writes an export to the bucket and serves its download', async () => {
    const before = (await objects()).length;
    const e = await call(inst, admin, 'POST', '/api/v1/exports', { connectionId, table: 'people', format: 'csv' });
    expect(e.status, e.text).toBe(202);
    expect((await inst.app.kernel.jobs.waitFor(e.body.data.export.jobId, 60_000)).state).toBe('succeeded');
    expect((await objects()).length).toBe(before + 1);
    const csv = await admin.get(`/api/v1/exports/${e.body.data.export.id}/download`);
    expect(csv.status, csv.text).toBe(200);
    expect((parseCsv(csv.text) as string[][]).length).toBe(301);
  });
});
