import type { ControlledTransaction } from 'kysely';
import type { ErrorIssue } from '../../kernel/errors.js';
import { JobError } from '../../kernel/jobs/errors.js';
import type { JobContext } from '../../kernel/jobs/types.js';
import type { ConnectionsProvides } from '../connections/provides.js';
import type { SchemaProvides } from '../schema/provides.js';
import { converterFor, ValueError } from './convert.js';
import type { DetectedColumn } from './detect.js';
import { planImport } from './plan.js';
import { ErrorReport } from './report.js';
import type { ImportsService } from './service.js';
import { readRecords } from './sources/index.js';
import type { ImportRow } from './tables.js';
import { keyFor, pgCastType, USE_DEFAULT, writeBatch, type PendingRow, type WriteTarget } from './write.js';

export interface ImportPayload {
  importId: string;
}

interface Counts {
  total: number;
  inserted: number;
  updated: number;
  refused: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Trx = ControlledTransaction<any>;

/**
 * The `import.run` job. All-or-nothing (and every dry run) is one transaction over the whole
 * file: committed only when no row was refused (never for a dry run), rolled back otherwise, and
 * rolled back by the database itself when the process dies, so the table holds all rows or
 * none. Batch mode commits each batch and records a checkpoint (last line, counts, report
 * length) after it, so a retry resumes after the last committed batch.
 */
export async function runImport(ctx: JobContext<ImportPayload>, service: ImportsService): Promise<Counts> {
  const { kernel } = ctx;
  const row = await service.db.selectFrom('imports').selectAll().where('id', '=', ctx.payload.importId).executeTakeFirst();
  if (!row || row.job_id !== ctx.job.id) throw new JobError('IMPORT_NOT_FOUND', 'This job does not belong to an import.', false);
  if (row.state !== 'queued' && row.state !== 'running') throw new JobError('IMPORT_FINISHED', `The import is already ${row.state}.`, false);
  const upload = await service.db.selectFrom('import_uploads').selectAll().where('id', '=', row.upload_id).executeTakeFirst();
  if (!upload) throw new JobError('IMPORT_UPLOAD_EXPIRED', 'The upload is gone; upload the file again.', false);
  const table = await kernel.plugin<SchemaProvides>('schema').table(row.connection_id, row.table_ref);
  if (!table) throw new JobError('IMPORT_TABLE_GONE', 'The table is no longer in the connection schema.', false);
  const sourceColumns = (JSON.parse(upload.columns) as DetectedColumn[]).map((c) => c.name);
  const issues: ErrorIssue[] = [];
  const mode = row.mode;
  const plan = planImport(table, sourceColumns, () => true, { mapping: JSON.parse(row.mapping), mode, upsertKey: row.upsert_key ? JSON.parse(row.upsert_key) : null }, issues);
  if (issues.length) throw new JobError('IMPORT_SCHEMA_CHANGED', `The table changed since the import was set up: ${issues.map((i) => i.message).join(' ')}`, false);
  const { db, info } = await kernel.plugin<ConnectionsProvides>('connections').source(row.connection_id);

  const atomic = Boolean(Number(row.atomic));
  const dryRun = Boolean(Number(row.dry_run));
  const resumable = !atomic && !dryRun;
  const resumeLine = resumable ? Number(row.checkpoint_line) : 0;
  const counts: Counts = resumable ? { total: Number(row.total), inserted: Number(row.inserted), updated: Number(row.updated), refused: Number(row.refused) } : { total: 0, inserted: 0, updated: 0, refused: 0 };
  const report = new ErrorReport(service.reportPath(row.id), sourceColumns, resumable ? Number(row.report_bytes) : 0);
  const set = (patch: Partial<ImportRow>) => service.db.updateTable('imports').set(patch).where('id', '=', row.id).execute();
  await set({ state: 'running', started_at: kernel.now(), ...(resumable ? {} : { total: 0, inserted: 0, updated: 0, refused: 0, checkpoint_line: 0, report_bytes: 0 }) });

  const target: WriteTarget = {
    dialect: info.dialect,
    table: { schema: table.schema, name: table.name },
    columns: plan.pairs.map(([, c]) => c.name),
    mode,
    key: plan.key,
    pgTypes: plan.pairs.map(([, c]) => pgCastType(c.nativeType)),
  };
  const converters = plan.pairs.map(([source, column]) => ({
    source,
    name: column.name,
    convert: converterFor(info.dialect, column),
    // An empty cell in a NOT NULL column with a default takes the default.
    defaultable: !column.nullable && (column.default !== null || column.autoIncrement),
  }));
  const keyOf = keyFor(target);
  const estimate = Number(upload.row_count) + Number(upload.problems);
  const batchSize = Number(row.batch_size);

  const whole: Trx | null = resumable ? null : await db.startTransaction().execute();
  let batch: PendingRow[] = [];
  let keys = new Set<string>();
  let consumed = resumeLine;
  const refuse = (line: number, reason: string, raw: PendingRow['raw'] | string[] | null) => {
    counts.refused++;
    report.add(line, reason, raw);
  };

  /** Writes the pending batch; `upTo` is the last line whose fate is then known (the checkpoint). */
  const flush = async (upTo: number) => {
    if (batch.length) {
      const trx = whole ?? (await db.startTransaction().execute());
      try {
        const out = await writeBatch(trx, target, batch);
        if (!whole) {
          ctx.signal.throwIfAborted();
          await trx.commit().execute();
        }
        counts.inserted += out.inserted;
        counts.updated += out.updated;
        for (const r of out.refused) refuse(r.row.line, r.reason, r.row.raw);
      } catch (err) {
        if (!whole) await trx.rollback().execute().catch(() => undefined);
        throw err;
      }
      batch = [];
      keys = new Set();
    }
    if (resumable) await set({ checkpoint_line: upTo, report_bytes: report.bytes, ...counts });
    else await set({ total: counts.total, refused: counts.refused });
    await ctx.progress(counts.total, Math.max(estimate, counts.total), `${counts.total} of ${Math.max(estimate, counts.total)} records`);
  };

  try {
    for await (const rec of readRecords(upload.format, service.uploadPath(upload.id), { delimiter: upload.delimiter, signal: ctx.signal })) {
      if (rec.line <= resumeLine) continue;
      counts.total++;
      if (rec.error !== undefined) {
        refuse(rec.line, rec.error, rec.raw);
        consumed = rec.line;
        continue;
      }
      const values: unknown[] = [];
      let problem: string | null = null;
      for (const c of converters) {
        try {
          const v = c.convert(rec.values[c.source]);
          values.push(v === null && c.defaultable ? USE_DEFAULT : v);
        } catch (err) {
          if (!(err instanceof ValueError)) throw err;
          problem = `${c.name}: ${err.message}`;
          break;
        }
      }
      if (problem) {
        refuse(rec.line, problem, rec.values);
        consumed = rec.line;
        continue;
      }
      const pending: PendingRow = { line: rec.line, values, raw: rec.values };
      if (keyOf) {
        const k = keyOf(pending);
        if (keys.has(k)) await flush(consumed);
        keys.add(k);
      }
      batch.push(pending);
      consumed = rec.line;
      if (batch.length >= batchSize) await flush(consumed);
    }
    await flush(consumed);
    ctx.signal.throwIfAborted();
    if (whole) {
      if (dryRun || counts.refused > 0) await whole.rollback().execute();
      else await whole.commit().execute();
    }
  } catch (err) {
    if (whole) await whole.rollback().execute().catch(() => undefined);
    report.close();
    throw err;
  }
  report.close();
  const finishedAt = kernel.now();
  if (atomic && !dryRun && counts.refused > 0) {
    const message = `${counts.refused} of ${counts.total} records were refused, so nothing was written (all or nothing); see the error report.`;
    await set({ state: 'failed', ...counts, inserted: 0, updated: 0, error_code: 'IMPORT_ROWS_REFUSED', error_message: message, finished_at: finishedAt });
    throw new JobError('IMPORT_ROWS_REFUSED', message, false);
  }
  await set({ state: 'succeeded', ...counts, error_code: null, error_message: null, finished_at: finishedAt });
  return counts;
}
