import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kernel } from '../../kernel/kernel-services.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable, type ServerDialect } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { attemptContext, claimAs, gate, serviceProbe } from '../../test/helpers/jobs.js';
import { connect, dataPermissionPlugins, emptySource, type Source } from '../exports/testing.js';
import { attemptReportKey, reportPrefix, reportSegmentKey } from './files.js';
import { runImport, type ImportPayload } from './run.js';
import { importsServiceRef } from './service.js';
import { uploadFile } from './testing.js';

const hasPg = await databaseAvailable('postgres');
const metas: Array<'sqlite' | ServerDialect> = ['sqlite'];
if (hasPg) metas.push('postgres');
if (await databaseAvailable('mysql')) metas.push('mysql');

/** No key: a batch written twice shows as rows twice. A negative n is refused (a line of the error report). */
const NOTES_DDL = 'create table notes (n integer not null check (n >= 0), label varchar(20))';
const RECORDS = 40;
/** Every seventh record is refused; record i is on line i + 1. */
const refused = (i: number) => i % 7 === 0;
const CSV = ['n,label', ...Array.from({ length: RECORDS }, (_, k) => `${refused(k + 1) ? -(k + 1) : k + 1},row ${k + 1}`)].join('\r\n');
const GOOD = Array.from({ length: RECORDS }, (_, k) => k + 1).filter((i) => !refused(i)).length;
const REPORT_LINES = [
  'line',
  ...Array.from({ length: RECORDS }, (_, k) => k + 1)
    .filter(refused)
    .map((i) => String(i + 1)),
];
const CLEAN_CSV = ['n,label', ...Array.from({ length: RECORDS }, (_, k) => `${k + 1},row ${k + 1}`)].join('\r\n');

describe.each(metas)('an import holder that stalls past its lease, on a %s meta store (IM9)', (meta) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  let pgSource: Source | null = null;
  let pgConnectionId = '';
  const probe = serviceProbe(importsServiceRef);

  beforeAll(async () => {
    // No workers: the test plays both holders itself.
    ({ inst, admin } = await bootWithAdmin({ meta, plugins: [...dataPermissionPlugins(), probe.plugin], jobs: { workers: 0 } }));
    source = await emptySource('sqlite');
    await source.exec(NOTES_DDL);
    connectionId = await connect(admin, source);
    if (hasPg) {
      pgSource = await emptySource('postgres');
      await pgSource.exec(NOTES_DDL);
      pgConnectionId = await connect(admin, pgSource, 'PostgreSQL');
    }
  }, 120_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
    await pgSource?.cleanup();
  });

  const rowsIn = async (src: Source) => Number((await sql<{ n: unknown }>`select count(*) as n from notes`.execute(src.db())).rows[0]!.n);
  const importRow = (id: string) => probe.held.service!.db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const reportKeys = async (id: string) => (await inst.app.kernel.files.list(reportPrefix(id))).map((f) => f.key);

  /** An import of CSV into `notes` of the connection, run (its job queued, no worker takes it). */
  async function queued(conn: string, body: object, csv = CSV): Promise<{ id: string; jobId: string; payload: ImportPayload }> {
    const up = await uploadFile(inst.url, admin, 'notes.csv', csv);
    expect(up.status, up.text).toBe(201);
    const created = await call(inst, admin, 'POST', '/api/v1/imports', {
      uploadId: up.body.data.upload.id,
      connectionId: conn,
      table: 'notes',
      mapping: { n: 'n', label: 'label' },
      ...body,
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.import.id as string;
    const run = await call(inst, admin, 'POST', `/api/v1/imports/${id}/run`);
    expect(run.status, run.text).toBe(202);
    return { id, jobId: run.body.data.import.jobId, payload: { importId: id } };
  }

  it("in batches: commits no batch, moves no checkpoint and writes no count or report once another holder took over, and keeps that holder's report", async () => {
    const service = probe.held.service!;
    const db = inst.app.kernel.db;
    await sql`delete from notes`.execute(source.db());
    const { id, jobId, payload } = await queued(connectionId, { atomic: false, batchSize: 5 });
    const job = (await inst.app.kernel.jobs.get(jobId))!;
    const kernelOf = (holder: string): Kernel => ({ ...service.kernel, instanceId: holder });

    // Holder A runs attempt 1 and stalls after its second batch (which refused a record) and its checkpoint.
    await claimAs(db, jobId, 1, 'holder-a');
    const stall = gate();
    const first = runImport(
      attemptContext(job, 1, payload, kernelOf('holder-a'), async (done) => {
        if (done >= 10 && !stall.entered) await stall.wait();
      }),
      service,
    );
    first.catch(() => undefined);
    expect(await stall.reached()).toBe(true);
    expect(await importRow(id)).toMatchObject({ state: 'running', checkpoint_line: 11, total: 10, refused: 1 });

    // Its lease ran out; holder B took the job over as attempt 2, resumed after A's checkpoint and finished.
    await claimAs(db, jobId, 2, 'holder-b');
    expect(await runImport(attemptContext(job, 2, payload, kernelOf('holder-b')), service)).toEqual({
      total: RECORDS,
      inserted: GOOD,
      updated: 0,
      refused: RECORDS - GOOD,
    });
    const done = await importRow(id);
    expect(done).toMatchObject({ state: 'succeeded', total: RECORDS, inserted: GOOD, refused: RECORDS - GOOD, checkpoint_line: RECORDS + 1 });
    expect(await rowsIn(source)).toBe(GOOD);
    const report = await admin.get(`/api/v1/imports/${id}/error-report`);
    expect(report.status, report.text).toBe(200);
    expect((parseCsv(report.text) as string[][]).map((r) => r[0])).toEqual(REPORT_LINES);
    const keys = await reportKeys(id);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.startsWith(done.report_key!)).toBe(true);

    // A resumes: its next batch is rolled back, its updates find no claim, and it stops.
    stall.open();
    await expect(first).rejects.toMatchObject({ code: 'IMPORT_LEASE_LOST' });
    expect(await importRow(id)).toEqual(done);
    expect(await rowsIn(source)).toBe(GOOD);
    expect((await admin.get(`/api/v1/imports/${id}/error-report`)).text).toBe(report.text);
    expect(await reportKeys(id)).toEqual(keys);
  }, 60_000);

  it('in batches: does not start once its own lease ran out, though nobody took over', async () => {
    const service = probe.held.service!;
    const db = inst.app.kernel.db;
    await sql`delete from notes`.execute(source.db());
    const { id, jobId, payload } = await queued(connectionId, { atomic: false, batchSize: 5 });
    const job = (await inst.app.kernel.jobs.get(jobId))!;
    await claimAs(db, jobId, 1, 'holder-a', Date.now() - 1000);
    await expect(runImport(attemptContext(job, 1, payload, { ...service.kernel, instanceId: 'holder-a' }), service)).rejects.toMatchObject({
      code: 'IMPORT_LEASE_LOST',
    });
    expect(await importRow(id)).toMatchObject({ state: 'queued', total: 0, inserted: 0, checkpoint_line: 0, report_key: null });
    expect(await rowsIn(source)).toBe(0);
    expect(await reportKeys(id)).toEqual([]);
  }, 60_000);

  it('in batches: a claim under the number of one a shutdown handed back keeps a report of its own', async () => {
    const service = probe.held.service!;
    const db = inst.app.kernel.db;
    await sql`delete from notes`.execute(source.db());
    const { id, jobId, payload } = await queued(connectionId, { atomic: false, batchSize: 5 });
    const job = (await inst.app.kernel.jobs.get(jobId))!;
    // A is stopped by a shutdown after its second checkpoint; the attempt does not count (J1)…
    await claimAs(db, jobId, 1, 'holder-a');
    const shutdown = Object.assign(new Error('job stopped: shutdown'), { name: 'AbortError' });
    const stopped = attemptContext(job, 1, payload, { ...service.kernel, instanceId: 'holder-a' }, async (done) => {
      if (done >= 10) throw shutdown;
    });
    await expect(runImport(stopped, service)).rejects.toBe(shutdown);
    // …so B claims it as attempt 1 again, and resumes after A's checkpoint.
    await claimAs(db, jobId, 1, 'holder-b');
    await runImport(attemptContext(job, 1, payload, { ...service.kernel, instanceId: 'holder-b' }), service);
    expect(await importRow(id)).toMatchObject({ state: 'succeeded', total: RECORDS, inserted: GOOD, refused: RECORDS - GOOD });
    expect(await rowsIn(source)).toBe(GOOD);
    const report = await admin.get(`/api/v1/imports/${id}/error-report`);
    expect((parseCsv(report.text) as string[][]).map((r) => r[0])).toEqual(REPORT_LINES);
  }, 60_000);

  it('serves the report its row names, the sweep removes the others of a finished import, and a report stored before IM9 is still read', async () => {
    const service = probe.held.service!;
    const files = inst.app.kernel.files;
    await sql`delete from notes`.execute(source.db());
    const { id, jobId, payload } = await queued(connectionId, { atomic: false, batchSize: 5 });
    const job = (await inst.app.kernel.jobs.get(jobId))!;
    await claimAs(inst.app.kernel.db, jobId, 1, 'holder-a');
    await runImport(attemptContext(job, 1, payload, { ...service.kernel, instanceId: 'holder-a' }), service);
    const named = (await importRow(id)).report_key!;
    expect(named.startsWith(`${reportPrefix(id)}1.`)).toBe(true);
    const report = (await admin.get(`/api/v1/imports/${id}/error-report`)).text;
    expect((parseCsv(report) as string[][]).map((r) => r[0])).toEqual(REPORT_LINES);

    // What a holder that lost the job may leave, and a segment laid out before IM9.
    const legacy = `${reportPrefix(id)}${'0'.repeat(15)}`;
    await files.put(reportSegmentKey(attemptReportKey(id, 2, 'stale'), 0), Readable.from([Buffer.from('line,reason,n,label\r\n9,stale,,\r\n')]));
    await files.put(legacy, Readable.from([Buffer.from('line,reason,n,label\r\n5,before IM9,,\r\n')]));
    expect((await admin.get(`/api/v1/imports/${id}/error-report`)).text).toBe(report);
    await service.sweep();
    for (const key of await reportKeys(id)) expect(key.startsWith(named)).toBe(true);
    expect((await admin.get(`/api/v1/imports/${id}/error-report`)).text).toBe(report);

    // An import run before IM9 names no report: its segments lie directly under its prefix.
    await files.put(legacy, Readable.from([Buffer.from('line,reason,n,label\r\n5,before IM9,,\r\n')]));
    await service.db.updateTable('imports').set({ report_key: null }).where('id', '=', id).execute();
    expect((await admin.get(`/api/v1/imports/${id}/error-report`)).text).toBe('line,reason,n,label\r\n5,before IM9,,\r\n');
  }, 60_000);

  it('the sweep removes scratch files a killed process left a day ago, and no newer one', async () => {
    const service = probe.held.service!;
    mkdirSync(service.workDir, { recursive: true });
    const old = join(service.workDir, 'killed.upload');
    const fresh = join(service.workDir, 'running.errors.csv');
    writeFileSync(old, 'x');
    writeFileSync(fresh, 'y');
    const dayAgo = (Date.now() - 25 * 3600_000) / 1000;
    utimesSync(old, dayAgo, dayAgo);
    await service.sweep();
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });

  it.runIf(hasPg)(
    'all or nothing (PostgreSQL, by COPY): does not commit its transaction once another holder took over',
    async () => {
      const service = probe.held.service!;
      const db = inst.app.kernel.db;
      await sql`delete from notes`.execute(pgSource!.db());
      const { id, jobId, payload } = await queued(pgConnectionId, { atomic: true, batchSize: 5 }, CLEAN_CSV);
      const job = (await inst.app.kernel.jobs.get(jobId))!;
      const kernelOf = (holder: string): Kernel => ({ ...service.kernel, instanceId: holder });

      // A stalls once it wrote every row, before its commit (its rows wait in its open transaction).
      await claimAs(db, jobId, 1, 'holder-a');
      const stall = gate();
      const first = runImport(
        attemptContext(job, 1, payload, kernelOf('holder-a'), async (n) => {
          if (n >= RECORDS && !stall.entered) await stall.wait();
        }),
        service,
      );
      first.catch(() => undefined);
      expect(await stall.reached()).toBe(true);

      // B takes over and imports the file.
      await claimAs(db, jobId, 2, 'holder-b');
      expect(await runImport(attemptContext(job, 2, payload, kernelOf('holder-b')), service)).toMatchObject({ total: RECORDS, inserted: RECORDS });
      const done = await importRow(id);
      expect(done).toMatchObject({ state: 'succeeded', total: RECORDS, inserted: RECORDS, refused: 0 });
      expect(await rowsIn(pgSource!)).toBe(RECORDS);

      // A resumes: it rolls back instead of committing the rows a second time, and changes nothing.
      stall.open();
      await expect(first).rejects.toMatchObject({ code: 'IMPORT_LEASE_LOST' });
      expect(await importRow(id)).toEqual(done);
      expect(await rowsIn(pgSource!)).toBe(RECORDS);
    },
    60_000,
  );
});
