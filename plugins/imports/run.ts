import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlledTransaction, Kysely } from 'kysely';
import type pg from 'pg';
import { attemptOf, type ErrorIssue, type JobContext, JobError } from '../../kernel/api.js';
import { hasPgClient, withPgClient } from '../../engine/sources/index.js';
import { connectionsRef } from '../connections/provides.js';
import { schemaRef } from '../schema/provides.js';
import { recordConverter } from './convert.js';
import type { DetectedColumn } from './detect.js';
import { planImport } from './plan.js';
import { uploadKey } from './files.js';
import { ErrorReport } from './report.js';
import type { AttemptReport } from './report-store.js';
import type { ImportsService } from './service.js';
import { BatchWriter, type Counts } from './batches.js';
import { clientDb, copyable, copyLine, copyLines, copyRows } from './pg-copy.js';
import { readRows } from './sources/index.js';
import type { ImportRow } from './tables.js';
import { pgCastType, USE_DEFAULT, type PendingRow, type WriteTarget } from './write.js';

/** Values per COPY statement when nothing forces smaller writes: 10 000 rows of 5 columns. */
const COPY_UNIT_VALUES = 50_000;

export interface ImportPayload {
  importId: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Trx = ControlledTransaction<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

/**
 * The `import.run` job. All-or-nothing (and every dry run) is one transaction over the whole
 * file: committed only when no row was refused (never for a dry run), rolled back otherwise, and
 * rolled back by the database itself when the process dies, so the table holds all rows or
 * none. Batch mode commits each batch and records a checkpoint (last line, counts, report
 * length) after it, so a retry resumes after the last committed batch.
 *
 * Fenced on the attempt (IM9): every write of the import's row holds only while this attempt
 * still has the job, each commit in the target database waits for a check that it does, and
 * the error report is this attempt's own, named by the row only through such a write. A holder
 * that stalled past its lease and resumes stops at its next write or commit.
 */
export async function runImport(ctx: JobContext<ImportPayload>, service: ImportsService): Promise<Counts> {
  // The upload and the report live in the file store (any replica may have taken them); an
  // attempt works on files of its own machine, removed when it ends (K45).
  const scratch: Array<() => void> = [];
  const stored = service.storedReport(ctx.payload.importId).attempt(ctx.job.attempts);
  try {
    return await importWith(ctx, service, stored, scratch);
  } catch (err) {
    // A report the row does not name is no one's (this attempt lost the job, or never had it).
    await service
      .reportKey(ctx.payload.importId)
      .then((named) => stored.dropUnless(named))
      .catch(() => undefined);
    throw err;
  } finally {
    for (const release of scratch) release();
  }
}

async function importWith(ctx: JobContext<ImportPayload>, service: ImportsService, stored: AttemptReport, scratch: Array<() => void>): Promise<Counts> {
  const { kernel } = ctx;
  const attempt = attemptOf(ctx);
  const row = await service.db.selectFrom('imports').selectAll().where('id', '=', ctx.payload.importId).executeTakeFirst();
  if (!row || row.job_id !== ctx.job.id) throw new JobError('IMPORT_NOT_FOUND', 'This job does not belong to an import.', false);
  if (row.state !== 'queued' && row.state !== 'running') throw new JobError('IMPORT_FINISHED', `The import is already ${row.state}.`, false);
  const upload = await service.db.selectFrom('import_uploads').selectAll().where('id', '=', row.upload_id).executeTakeFirst();
  if (!upload) throw new JobError('IMPORT_UPLOAD_EXPIRED', 'The upload is gone; upload the file again.', false);
  const table = await kernel.plugin(schemaRef).table(row.connection_id, row.table_ref);
  if (!table) throw new JobError('IMPORT_TABLE_GONE', 'The table is no longer in the connection schema.', false);
  const sourceColumns = (JSON.parse(upload.columns) as DetectedColumn[]).map((c) => c.name);
  const issues: ErrorIssue[] = [];
  const mode = row.mode;
  const plan = planImport(
    table,
    sourceColumns,
    () => true,
    { mapping: JSON.parse(row.mapping), mode, upsertKey: row.upsert_key ? JSON.parse(row.upsert_key) : null },
    issues,
  );
  if (issues.length)
    throw new JobError('IMPORT_SCHEMA_CHANGED', `The table changed since the import was set up: ${issues.map((i) => i.message).join(' ')}`, false);
  const { db, info } = await kernel.plugin(connectionsRef).source(row.connection_id);

  const atomic = Boolean(Number(row.atomic));
  const dryRun = Boolean(Number(row.dry_run));
  const resumable = !atomic && !dryRun;
  const resumeLine = resumable ? Number(row.checkpoint_line) : 0;
  const counts: Counts = resumable
    ? { total: Number(row.total), inserted: Number(row.inserted), updated: Number(row.updated), refused: Number(row.refused) }
    : { total: 0, inserted: 0, updated: 0, refused: 0 };
  service.ensureDirs();
  const copy = await kernel.files.localCopy(uploadKey(upload.id), service.workDir);
  if (!copy) throw new JobError('IMPORT_UPLOAD_EXPIRED', 'The upload is gone; upload the file again.', false);
  scratch.push(copy.release);
  // The report is appended here and stored a segment per checkpoint, under this attempt's own
  // key; a retry starts from the report the row names, up to its checkpoint.
  const reportPath = join(service.workDir, `${row.id}.${ctx.job.attempts}.errors.csv`);
  const resumeAt = resumable ? Number(row.report_bytes) : 0;
  await stored.restore(reportPath, row.report_key ?? null, resumeAt);
  const report = new ErrorReport(reportPath, sourceColumns, resumeAt);
  scratch.push(() => rmSync(reportPath, { force: true }));
  await stored.persist(reportPath, report.bytes);
  const set = (patch: Partial<ImportRow>) => service.hold(row.id, attempt, patch);
  await set({
    state: 'running',
    started_at: kernel.now(),
    report_key: stored.key,
    ...(resumable ? {} : { total: 0, inserted: 0, updated: 0, refused: 0, checkpoint_line: 0, report_bytes: 0 }),
  });
  // The row names this attempt's report now, and no earlier claim can name its own again.
  await service.storedReport(row.id).removeOlder(ctx.job.attempts, stored.key);

  const target: WriteTarget = {
    dialect: info.dialect,
    table: { schema: table.schema, name: table.name },
    columns: plan.pairs.map(([, c]) => c.name),
    mode,
    key: plan.key,
    pgTypes: plan.pairs.map(([, c]) => pgCastType(c.nativeType)),
  };
  const convert = recordConverter(
    info.dialect,
    plan.pairs.map(([source, column]) => ({ at: sourceColumns.indexOf(source), column })),
    USE_DEFAULT,
    upload.format === 'json',
  );
  const read = () =>
    readRows(upload.format, copy.path, sourceColumns, {
      delimiter: upload.delimiter,
      signal: ctx.signal,
      xlsxLimits: service.xlsxLimits(),
    });
  /** The rows at these places of the file (the nth record read, ascending) as values, read again (IM7). */
  const reread = async (seqs: number[]): Promise<PendingRow[]> => {
    const out: PendingRow[] = [];
    const last = seqs[seqs.length - 1] ?? 0;
    let seq = 0;
    reading: for await (const rows of read()) {
      for (const rec of rows) {
        if (++seq > last) break reading;
        if (seq !== seqs[out.length]) continue;
        if (rec.error !== undefined) break reading;
        const values = convert(rec.cells);
        if (typeof values === 'string') break reading;
        out.push({ line: rec.line, values, raw: rec.cells });
      }
    }
    if (out.length !== seqs.length) throw new JobError('IMPORT_FILE_CHANGED', 'The uploaded file read differently the second time.', false);
    return out;
  };
  const estimate = Number(upload.row_count) + Number(upload.problems);
  const batchSize = Number(row.batch_size);

  /** The whole write phase on `wdb`; `client`, when given, is its connection and takes the batches by COPY. */
  const writeAll = async (wdb: Db, client: pg.PoolClient | null): Promise<void> => {
    const whole: Trx | null = resumable ? null : await wdb.startTransaction().execute();
    const writer = new BatchWriter({
      db: wdb,
      whole,
      target,
      ...(client ? { bulk: (rows) => copyRows(client, target, rows) } : {}),
      batchSize,
      // All or nothing by COPY: several batches a statement (a checkpoint needs each batch on its own),
      // held as COPY text rather than values (IM7).
      ...(client && !resumable
        ? {
            unit: Math.max(batchSize, Math.floor(COPY_UNIT_VALUES / Math.max(1, target.columns.length))),
            lines: { write: (lines) => copyLines(client, target, lines), reread },
          }
        : {}),
      overlap: !resumable,
      report,
      counts,
      signal: ctx.signal,
      from: resumeLine,
      beforeCommit: () => service.stillHolds(attempt),
      afterBatch: async (upTo) => {
        // The report's new bytes are stored before the checkpoint that counts them.
        await stored.persist(reportPath, report.bytes);
        if (resumable) await set({ checkpoint_line: upTo, report_bytes: report.bytes, ...counts });
        else await set({ total: counts.total, refused: counts.refused });
        const of = Math.max(estimate, counts.total);
        await ctx.progress(counts.total, of, `${counts.total} of ${of} records`);
      },
    });
    try {
      // Records come a chunk at a time; within one, conversion runs without an await.
      let seq = 0;
      for await (const rows of read()) {
        for (const rec of rows) {
          seq++;
          if (rec.line <= resumeLine) continue;
          counts.total++;
          if (rec.error !== undefined) {
            if (writer.refuse(rec.line, rec.error, rec.raw)) await writer.flush();
            continue;
          }
          const values = convert(rec.cells);
          if (typeof values === 'string') {
            if (writer.refuse(rec.line, values, rec.cells)) await writer.flush();
            continue;
          }
          if (writer.takesLines) {
            const text = copyLine(values);
            if (text !== null) {
              if (writer.addLine(seq, rec.line, text)) await writer.flush();
              continue;
            }
          }
          const pending: PendingRow = { line: rec.line, values, raw: rec.cells };
          if (writer.holdsKeyOf(pending)) await writer.flush();
          if (writer.add(pending)) await writer.flush();
        }
      }
      await writer.finish();
      ctx.signal.throwIfAborted();
      if (whole) {
        if (dryRun || counts.refused > 0) await whole.rollback().execute();
        else {
          await service.stillHolds(attempt);
          await whole.commit().execute();
        }
      }
    } catch (err) {
      await writer.settle();
      if (whole)
        await whole
          .rollback()
          .execute()
          .catch(() => undefined);
      throw err;
    }
  };

  try {
    // PostgreSQL, inserting into a plain table: the batches go by COPY, on one client of the
    // source's pool (its session settings hold) that carries the whole transaction.
    if (info.dialect === 'postgres' && mode === 'insert' && hasPgClient(db) && (await copyable(db, target))) {
      await withPgClient(db, (client) => writeAll(clientDb(client), client));
    } else await writeAll(db, null);
  } catch (err) {
    report.close();
    await stored.persist(reportPath, report.bytes).catch(() => undefined);
    throw err;
  }
  report.close();
  await stored.persist(reportPath, report.bytes);
  const finishedAt = kernel.now();
  if (atomic && !dryRun && counts.refused > 0) {
    const message = `${counts.refused} of ${counts.total} records were refused, so nothing was written (all or nothing); see the error report.`;
    await set({ state: 'failed', ...counts, inserted: 0, updated: 0, error_code: 'IMPORT_ROWS_REFUSED', error_message: message, finished_at: finishedAt });
    throw new JobError('IMPORT_ROWS_REFUSED', message, false);
  }
  await set({ state: 'succeeded', ...counts, error_code: null, error_message: null, finished_at: finishedAt });
  return counts;
}
