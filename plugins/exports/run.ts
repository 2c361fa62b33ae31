import { createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import type { ErrorIssue } from '../../kernel/errors.js';
import { JobError } from '../../kernel/jobs/errors.js';
import type { JobContext } from '../../kernel/jobs/types.js';
import { hasPgClient } from '../../kernel/sources/index.js';
import type { ConnectionsProvides } from '../connections/provides.js';
import type { SchemaProvides } from '../schema/provides.js';
import { writeFormat } from './formats/index.js';
import { copyCsv } from './pg-copy.js';
import { planRead } from './plan.js';
import type { Filter } from './query.js';
import { countRows, readChunks } from './read.js';
import type { ExportsService } from './service.js';

export interface ExportPayload {
  exportId: string;
}

/**
 * The `export.run` job: streams the rows into `<id>.<ext>.part` a chunk at a time (the reader
 * waits whenever the file falls behind, so memory stays flat whatever the table's size), then
 * renames it into place and marks the export ready. A retry starts the file over.
 */
export async function runExport(ctx: JobContext<ExportPayload>, service: ExportsService): Promise<{ rowCount: number; bytes: number }> {
  const { kernel } = ctx;
  const row = await service.db.selectFrom('exports').selectAll().where('id', '=', ctx.payload.exportId).executeTakeFirst();
  // POST /jobs could enqueue this kind by hand: only the job the export itself made may run it.
  if (!row || row.job_id !== ctx.job.id) throw new JobError('EXPORT_NOT_FOUND', 'This job does not belong to an export.', false);
  if (row.state !== 'queued' && row.state !== 'running') throw new JobError('EXPORT_FINISHED', `The export is already ${row.state}.`, false);
  const startedAt = kernel.now();
  await service.db.updateTable('exports').set({ state: 'running', started_at: startedAt }).where('id', '=', row.id).execute();

  const table = await kernel.plugin<SchemaProvides>('schema').table(row.connection_id, row.table_ref);
  if (!table) throw new JobError('EXPORT_TABLE_GONE', 'The table is no longer in the connection schema.', false);
  const { db, info } = await kernel.plugin<ConnectionsProvides>('connections').source(row.connection_id);
  const issues: ErrorIssue[] = [];
  // Access was checked when the export was asked for; here only secret columns stay out.
  const readable = new Set(table.columns.filter((c) => !c.display.secret).map((c) => c.name));
  const spec = planRead(info.dialect, table, readable, { columns: JSON.parse(row.columns) as string[], filter: row.filter ? (JSON.parse(row.filter) as Filter) : null, sort: row.sort }, issues);
  if (issues.length) throw new JobError('EXPORT_SCHEMA_CHANGED', `The table changed since the export was asked for: ${issues.map((i) => i.message).join(' ')}`, false);

  service.ensureDir();
  const { part, file } = service.partOf(row.id, row.format);
  const report = (done: number, total: number) => void ctx.progress(done, total, `${done} of ${total} rows`);
  let done = 0;
  const safe = Number(row.formula_safe) === 1;
  try {
    // CSV on PostgreSQL: COPY formats every value in the server (pg-copy.ts); the rest reads chunks.
    if (row.format === 'csv' && info.dialect === 'postgres' && hasPgClient(db)) {
      done = await copyCsv(db, spec, createWriteStream(part), ctx.signal, report, safe);
    } else {
      const total = await countRows(db, spec);
      report(0, total);
      // Whole chunks travel to the writer: a stream step per row costs more than the row itself.
      // The writer pulls the next chunk only as the file drains the last, so memory stays flat.
      const chunks = async function* () {
        for await (const chunk of readChunks(db, spec)) {
          ctx.signal.throwIfAborted();
          yield chunk;
          done += chunk.length;
          report(done, Math.max(total, done));
        }
      };
      await writeFormat(row.format, chunks(), spec.columns, createWriteStream(part), ctx.signal, safe);
    }
    renameSync(part, file);
  } catch (err) {
    rmSync(part, { force: true });
    throw err;
  }
  const bytes = statSync(file).size;
  const finishedAt = kernel.now();
  await service.db
    .updateTable('exports')
    .set({ state: 'ready', row_count: done, bytes, finished_at: finishedAt, expires_at: finishedAt + (await service.retentionMs()), error_code: null, error_message: null })
    .where('id', '=', row.id)
    .execute();
  return { rowCount: done, bytes };
}
