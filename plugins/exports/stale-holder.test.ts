import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileStore } from '../../kernel/files/types.js';
import type { Kernel } from '../../kernel/kernel-services.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable, type ServerDialect } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { attemptContext, claimAs, gate, serviceProbe } from '../../test/helpers/jobs.js';
import { EXPORTS_PREFIX } from './files.js';
import { runExport, type ExportPayload } from './run.js';
import { exportsServiceRef } from './service.js';
import { connect, dataPermissionPlugins, emptySource, insertPeople, PEOPLE_DDL, people, type Source } from './testing.js';

const metas: Array<'sqlite' | ServerDialect> = ['sqlite'];
if (await databaseAvailable('postgres')) metas.push('postgres');
if (await databaseAvailable('mysql')) metas.push('mysql');

/** A file store whose puts wait at `g` before they start. */
function gatedFiles(real: FileStore, g: ReturnType<typeof gate>): FileStore {
  return {
    driver: real.driver,
    put: async (key, body, opts) => {
      await g.wait();
      return real.put(key, body, opts);
    },
    stat: (k) => real.stat(k),
    open: (k) => real.open(k),
    localCopy: (k, d) => real.localCopy(k, d),
    expire: (k, at) => real.expire(k, at),
    delete: (k) => real.delete(k),
    list: (p) => real.list(p),
    sweep: (now) => real.sweep(now),
  };
}

describe.each(metas)('an export holder that stalls past its lease, on a %s meta store (EX7)', (meta) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  const probe = serviceProbe(exportsServiceRef);

  beforeAll(async () => {
    // No workers: the test plays both holders itself.
    ({ inst, admin } = await bootWithAdmin({ meta, plugins: [...dataPermissionPlugins(), probe.plugin], jobs: { workers: 0 } }));
    source = await emptySource('sqlite');
    await source.exec(PEOPLE_DDL.sqlite);
    await insertPeople(source, people(50));
    connectionId = await connect(admin, source);
  }, 120_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  // Attempt 1 again: a shutdown handed the job back, which does not count as an attempt.
  it.each([2, 1])(
    "changes nothing when it resumes after another holder (attempt %i) made the export ready, and keeps that holder's file",
    async (next) => {
      const service = probe.held.service!;
      const db = inst.app.kernel.db;
      const res = await call(inst, admin, 'POST', '/api/v1/exports', { connectionId, table: 'people', format: 'csv' });
      expect(res.status, res.text).toBe(202);
      const { id, jobId } = res.body.data.export;
      const job = (await inst.app.kernel.jobs.get(jobId))!;
      const ctxOf = (attempts: number, kernel: Kernel) => attemptContext<ExportPayload>(job, attempts, { exportId: id }, kernel);

      // Holder A claims attempt 1 and stalls just before its file is stored.
      await claimAs(db, jobId, 1, 'holder-a');
      const stall = gate();
      const first = runExport(ctxOf(1, { ...service.kernel, instanceId: 'holder-a', files: gatedFiles(service.kernel.files, stall) }), service);
      first.catch(() => undefined);
      expect(await stall.reached()).toBe(true);

      // Its lease ran out; holder B took the job over and finished it.
      await claimAs(db, jobId, next, 'holder-b');
      expect(await runExport(ctxOf(next, { ...service.kernel, instanceId: 'holder-b' }), service)).toMatchObject({ rowCount: 50 });
      const ready = await db
        .withTables<{ exports: { id: string; state: string; file_key: string | null; bytes: number } }>()
        .selectFrom('exports')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(ready).toMatchObject({ state: 'ready', file_key: expect.stringMatching(new RegExp(`^${EXPORTS_PREFIX}${id}/${next}\\.[0-9A-Za-z]+\\.csv$`)) });

      // A resumes: its update finds no claim, and it drops only its own file.
      stall.open();
      await expect(first).rejects.toMatchObject({ code: 'EXPORT_LEASE_LOST' });
      const after = await db
        .withTables<{ exports: { id: string; state: string; file_key: string | null; bytes: number } }>()
        .selectFrom('exports')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(after).toEqual(ready);
      expect((await inst.app.kernel.files.list(`${EXPORTS_PREFIX}${id}/`)).map((f) => f.key)).toEqual([ready.file_key]);
      const dl = await admin.get(`/api/v1/exports/${id}/download`);
      expect(dl.status, dl.text).toBe(200);
      expect(dl.text.trim().split('\r\n').length).toBe(51);
    },
    60_000,
  );

  it('does not mark the export ready once its own lease ran out, though nobody took over', async () => {
    const service = probe.held.service!;
    const db = inst.app.kernel.db;
    const res = await call(inst, admin, 'POST', '/api/v1/exports', { connectionId, table: 'people', format: 'jsonl' });
    const { id, jobId } = res.body.data.export;
    const job = (await inst.app.kernel.jobs.get(jobId))!;
    await claimAs(db, jobId, 1, 'holder-a', Date.now() - 1000);
    const ctx = attemptContext<ExportPayload>(job, 1, { exportId: id }, { ...service.kernel, instanceId: 'holder-a' });
    await expect(runExport(ctx, service)).rejects.toMatchObject({ code: 'EXPORT_LEASE_LOST' });
    const row = await db
      .withTables<{ exports: { id: string; state: string; file_key: string | null } }>()
      .selectFrom('exports')
      .select(['state', 'file_key'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'running', file_key: null });
    expect(await inst.app.kernel.files.list(`${EXPORTS_PREFIX}${id}/`)).toEqual([]);
  }, 60_000);
});
