import { PassThrough } from 'node:stream';
import { attemptHolds, attemptOf, type ErrorIssue, type JobContext, JobError, newId, type StoredFile } from '../../kernel/api.js';
import { hasPgClient } from '../../engine/sources/index.js';
import { connectionsRef } from '../connections/provides.js';
import { schemaRef } from '../schema/provides.js';
import { writeFormat } from './formats/index.js';
import { attemptKey } from './files.js';
import { copyCsv } from './pg-copy.js';
import { planRead } from './plan.js';
import type { Filter } from './query.js';
import { countRows, readChunks, type ReadSpec } from './read.js';
import type { ExportFormat } from './formats/index.js';
import type { ExportsService, StoredSearch } from './service.js';

export interface ExportPayload {
  exportId: string;
}

/**
 * The `export.run` job: streams the rows into the kernel's file store a chunk at a time (the
 * reader waits whenever the store falls behind, so memory stays flat whatever the table's size),
 * under a key of this attempt's own, then marks the export ready naming that file, fenced on
 * this attempt still holding the job's lease (EX7). A holder that stalled past its lease and
 * resumes changes nothing: its file is its own, and its `ready` update finds no claim.
 */
export async function runExport(ctx: JobContext<ExportPayload>, service: ExportsService): Promise<{ rowCount: number; bytes: number }> {
  const { kernel } = ctx;
  const row = await service.db.selectFrom('exports').selectAll().where('id', '=', ctx.payload.exportId).executeTakeFirst();
  // POST /jobs could enqueue this kind by hand: only the job the export itself made may run it.
  if (!row || row.job_id !== ctx.job.id) throw new JobError('EXPORT_NOT_FOUND', 'This job does not belong to an export.', false);
  if (row.state !== 'queued' && row.state !== 'running') throw new JobError('EXPORT_FINISHED', `The export is already ${row.state}.`, false);
  const startedAt = kernel.now();
  await service.db.updateTable('exports').set({ state: 'running', started_at: startedAt }).where('id', '=', row.id).execute();

  const table = await kernel.plugin(schemaRef).table(row.connection_id, row.table_ref);
  if (!table) throw new JobError('EXPORT_TABLE_GONE', 'The table is no longer in the connection schema.', false);
  const { db, info } = await kernel.plugin(connectionsRef).source(row.connection_id);
  const issues: ErrorIssue[] = [];
  // Access was checked when the export was asked for; here only secret columns stay out.
  const readable = new Set(table.columns.filter((c) => !c.display.secret).map((c) => c.name));
  const spec = planRead(
    info.dialect,
    table,
    readable,
    {
      columns: JSON.parse(row.columns) as string[],
      filter: row.filter ? (JSON.parse(row.filter) as Filter) : null,
      ...searchOf(row.search),
      sort: row.sort,
    },
    issues,
  );
  if (issues.length)
    throw new JobError('EXPORT_SCHEMA_CHANGED', `The table changed since the export was asked for: ${issues.map((i) => i.message).join(' ')}`, false);

  const key = attemptKey(row.id, ctx.job.attempts, newId(), row.format);
  // The writers below write into `out`; the store takes what they write as it stores it.
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  const storing = kernel.files.put(key, out);
  storing.catch((err: Error) => out.destroy(err));
  const report = (done: number, total: number) => void ctx.progress(done, total, `${done} of ${total} rows`);
  const safe = Number(row.formula_safe) === 1;
  let done = 0;
  let file: StoredFile;
  try {
    done = await writeRows(db, info.dialect, spec, row.format, out, ctx.signal, report, safe);
    file = await storing;
  } catch (err) {
    // A put cut short keeps nothing (the store drops what it had written).
    out.destroy();
    await storing.catch(() => undefined);
    throw err;
  }
  const bytes = file.size;
  const finishedAt = kernel.now();
  const expiresAt = finishedAt + (await service.retentionMs());
  const res = await service.db
    .updateTable('exports')
    .set({ state: 'ready', file_key: key, row_count: done, bytes, finished_at: finishedAt, expires_at: expiresAt, error_code: null, error_message: null })
    .where('id', '=', row.id)
    .where('job_id', '=', ctx.job.id)
    .where('state', 'in', ['queued', 'running'])
    .where(attemptHolds(attemptOf(ctx), finishedAt))
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) {
    await kernel.files.delete(key);
    throw new JobError('EXPORT_LEASE_LOST', 'This attempt no longer held the job; its file was dropped.', false);
  }
  // The store forgets the file at the same time, should the export's sweep not come first.
  await kernel.files.expire(key, expiresAt);
  return { rowCount: done, bytes };
}

/**
 * Streams the rows `spec` reads into `out` in `format` and answers how many went: CSV on
 * PostgreSQL through COPY, which formats every value in the server (pg-copy.ts); the rest a chunk
 * at a time, the writer pulling the next chunk only as the file drains the last, so memory stays
 * flat. The export job and the provided export (provides.ts) both write through it.
 */
export async function writeRows(
  db: Parameters<typeof countRows>[0],
  dialect: string,
  spec: ReadSpec,
  format: ExportFormat,
  out: PassThrough,
  signal: AbortSignal,
  report: (done: number, total: number) => void,
  safe: boolean,
): Promise<number> {
  if (format === 'csv' && dialect === 'postgres' && hasPgClient(db)) return copyCsv(db, spec, out, signal, report, safe);
  const total = await countRows(db, spec);
  report(0, total);
  let done = 0;
  // Whole chunks travel to the writer: a stream step per row costs more than the row itself.
  const chunks = async function* () {
    for await (const chunk of readChunks(db, spec)) {
      signal.throwIfAborted();
      yield chunk;
      done += chunk.length;
      report(done, Math.max(total, done));
    }
  };
  await writeFormat(format, chunks(), spec.columns, out, signal, safe);
  return done;
}

/** The stored search (EX9) as planRead takes it. */
function searchOf(stored: string | null): { search: string | null; searchIn: string[] | null } {
  if (stored === null) return { search: null, searchIn: null };
  const { text, columns } = JSON.parse(stored) as StoredSearch;
  return { search: text, searchIn: columns };
}
