import { createReadStream, createWriteStream, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  defineServiceRef,
  AppError,
  type Attempt,
  attemptHolds,
  type ErrorIssue,
  grantAllows,
  type Job,
  JobError,
  type Kernel,
  newId,
  ownedBy,
  ownedPage,
  ownerOf,
  type Principal,
  stillHolds,
} from '../../kernel/api.js';
import { connectionsRef } from '../connections/provides.js';
import { schemaRef } from '../schema/provides.js';
import { scanUpload, type DetectedColumn } from './detect.js';
import { DEFAULT_XLSX_LIMITS, type XlsxLimits } from './sources/xlsx.js';
import { REPORTS_PREFIX, uploadKey, workDir } from './files.js';
import { StoredReport } from './report-store.js';
import { planImport } from './plan.js';
import type { CreateImport, Import, ImportState, Upload } from './schemas.js';
import { importsDb, type ImportRow, type ImportsDb, type UploadRow } from './tables.js';

export const IMPORT_JOB = 'import.run';
export const IMPORTS_RUN = 'imports.run';
export const IMPORTS_ADMIN = 'imports.admin';
export const DATA_WRITE = 'data.write';
/** Settings key `imports`: `{ maxUploadBytes (default 50 MiB), retentionHours (default 24) }`. */
export const SETTINGS_KEY = 'imports';
export const DEFAULT_MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const DEFAULT_RETENTION_HOURS = 24;

const FINAL = new Set<ImportState>(['succeeded', 'failed', 'cancelled']);
const num = (v: number | null) => (v === null ? null : Number(v));

export class ImportsService {
  readonly db: ImportsDb;

  constructor(readonly kernel: Kernel) {
    this.db = importsDb(kernel.db);
  }

  private async settings(): Promise<{ maxUploadBytes: number; retentionMs: number }> {
    const s = await this.kernel.settings.get<{ maxUploadBytes?: number; retentionHours?: number }>(SETTINGS_KEY).catch(() => null);
    // The stored setting wins; then the operator's SVC_IMPORT_MAX_BYTES; then 50 MiB.
    const max =
      typeof s?.maxUploadBytes === 'number' && s.maxUploadBytes > 0 ? s.maxUploadBytes : (this.kernel.config.importMaxBytes ?? DEFAULT_MAX_UPLOAD_BYTES);
    const hours = typeof s?.retentionHours === 'number' && s.retentionHours > 0 ? s.retentionHours : DEFAULT_RETENTION_HOURS;
    return { maxUploadBytes: max, retentionMs: hours * 3600_000 };
  }

  maxUploadBytes(): Promise<number> {
    return this.settings().then((s) => s.maxUploadBytes);
  }

  /** The operator's caps on what an XLSX may unpack to (SVC_IMPORT_MAX_UNPACKED_BYTES, SVC_IMPORT_WORKER_MEMORY_MB). */
  xlsxLimits(): XlsxLimits {
    const { maxUnpackedBytes, workerMemoryMb } = this.kernel.config.importXlsx;
    return {
      ...DEFAULT_XLSX_LIMITS,
      maxUnpackedBytes,
      maxSharedStringsBytes: Math.min(DEFAULT_XLSX_LIMITS.maxSharedStringsBytes, maxUnpackedBytes),
      workerMemoryMb,
    };
  }

  /** This machine's scratch folder (uploads being scanned, copies being imported, reports being appended). */
  get workDir(): string {
    return workDir(this.kernel.config.dataDir);
  }

  ensureDirs(): void {
    mkdirSync(this.workDir, { recursive: true });
  }

  /** The error reports of an import, kept in the kernel's file store (any replica serves them). */
  storedReport(importId: string): StoredReport {
    return new StoredReport(this.kernel.files, importId);
  }

  /**
   * Writes the running import's row only while `attempt` still has its job (IM9): every state,
   * progress and final write of a run goes through here. A holder that stalled past its lease
   * and resumed changes nothing, and stops.
   */
  async hold(id: string, attempt: Attempt, patch: Partial<ImportRow>): Promise<void> {
    const res = await this.db
      .updateTable('imports')
      .set(patch)
      .where('id', '=', id)
      .where('job_id', '=', attempt.jobId)
      .where('state', 'in', ['queued', 'running'])
      .where(attemptHolds(attempt, this.kernel.now()))
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw leaseLost();
  }

  /** Throws unless `attempt` still has its job: just before a commit in the target database, which no meta-store statement can join. */
  async stillHolds(attempt: Attempt): Promise<void> {
    if (!(await stillHolds(this.kernel.db, attempt, this.kernel.now()))) throw leaseLost();
  }

  /** The report the import's row names now (IM9). */
  async reportKey(id: string): Promise<string | null> {
    const row = await this.db.selectFrom('imports').select('report_key').where('id', '=', id).executeTakeFirst();
    return row?.report_key ?? null;
  }

  /**
   * Reads the file once on this machine (format, columns, types, sample, count), then keeps it
   * in the kernel's file store, where the replica that runs the import finds it, and records the upload.
   */
  async upload(principal: Principal, fileName: string, file: Readable, limit: number): Promise<Upload> {
    const now = this.kernel.now();
    const id = newId(now);
    const path = join(this.workDir, `${id}.upload`);
    const key = uploadKey(id);
    this.ensureDirs();
    try {
      await pipeline(file, createWriteStream(path));
      // busboy stops at the limit and marks the stream truncated rather than failing it.
      if ((file as Readable & { truncated?: boolean }).truncated)
        throw new AppError('PAYLOAD_TOO_LARGE', { message: `The file is larger than ${limit} bytes.`, params: { limit } });
      const scan = await scanUpload(path, { xlsxLimits: this.xlsxLimits() }).catch((err: Error) => {
        if (err instanceof AppError) throw err;
        throw new AppError('IMPORT_UNREADABLE', { message: `The file could not be read: ${err.message.slice(0, 200)}` });
      });
      if (scan.columns.length === 0) throw new AppError('IMPORT_UNREADABLE', { message: 'The file has no columns (an empty file, or no header row).' });
      const owner = ownerOf(principal);
      const expiresAt = now + (await this.settings()).retentionMs;
      const stored = await this.kernel.files.put(key, createReadStream(path), { expiresAt });
      const row: UploadRow = {
        id,
        file_name: fileName.slice(0, 255),
        format: scan.format,
        size: stored.size,
        columns: JSON.stringify(scan.columns),
        sample: JSON.stringify(scan.sampleRows),
        row_count: scan.rowCount,
        problems: scan.problems,
        delimiter: scan.delimiter,
        owner_type: owner.type,
        owner_id: owner.id,
        created_at: now,
        expires_at: expiresAt,
      };
      await this.db.insertInto('import_uploads').values(row).execute();
      return toUpload(row);
    } catch (err) {
      await this.kernel.files.delete(key).catch(() => false);
      throw err;
    } finally {
      rmSync(path, { force: true });
    }
  }

  async uploadOf(principal: Principal, id: string): Promise<UploadRow> {
    const row = ownedBy(principal, await this.db.selectFrom('import_uploads').selectAll().where('id', '=', id).executeTakeFirst(), IMPORTS_ADMIN);
    if (!row) throw new AppError('NOT_FOUND', { message: 'No upload with this id.', params: { uploadId: id } });
    if (Number(row.expires_at) <= this.kernel.now() || !(await this.kernel.files.stat(uploadKey(id)))) throw new AppError('IMPORT_UPLOAD_EXPIRED');
    return row;
  }

  async visible(principal: Principal, id: string): Promise<ImportRow> {
    const row = ownedBy(principal, await this.db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst(), IMPORTS_ADMIN);
    if (!row) throw new AppError('NOT_FOUND', { message: 'No import with this id.' });
    return row;
  }

  /** Checks the mapping against the upload, the table and the caller's data.write grant, and stores the import (not yet run). */
  async create(principal: Principal, body: CreateImport): Promise<Import> {
    const upload = await this.uploadOf(principal, body.uploadId);
    const info = await this.kernel.plugin(connectionsRef).info(body.connectionId);
    if (info.readOnly) throw new AppError('CONFLICT', { message: 'The connection is read-only.', params: { reason: 'read-only-connection' } });
    const table = await this.kernel.plugin(schemaRef).table(body.connectionId, body.table);
    if (!table)
      throw new AppError('NOT_FOUND', {
        message: 'The connection has no table of this ref (introspect it again if it is new).',
        params: { table: body.table },
      });
    if (table.kind !== 'table')
      throw new AppError('VALIDATION_FAILED', { issues: [{ path: 'body.table', code: 'not_a_table', message: 'Rows are imported into tables, not views.' }] });
    const scope = principal.permissions.grantOn(DATA_WRITE, body.connectionId, table.ref);
    if (scope === null) throw new AppError('FORBIDDEN', { params: { permission: DATA_WRITE, connectionId: body.connectionId, table: table.ref } });
    const issues: ErrorIssue[] = [];
    const columns = (JSON.parse(upload.columns) as DetectedColumn[]).map((c) => c.name);
    planImport(table, columns, (c) => grantAllows(scope, c), body, issues);
    if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
    const owner = ownerOf(principal);
    const now = this.kernel.now();
    const row: ImportRow = {
      id: newId(now),
      upload_id: upload.id,
      connection_id: body.connectionId,
      table_ref: table.ref,
      mapping: JSON.stringify(body.mapping),
      mode: body.mode,
      upsert_key: body.mode === 'upsert' ? JSON.stringify(body.upsertKey) : null,
      atomic: body.atomic ? 1 : 0,
      batch_size: body.batchSize,
      dry_run: body.dryRun ? 1 : 0,
      state: 'created',
      job_id: null,
      total: 0,
      inserted: 0,
      updated: 0,
      refused: 0,
      checkpoint_line: 0,
      report_bytes: 0,
      report_key: null,
      error_code: null,
      error_message: null,
      owner_type: owner.type,
      owner_id: owner.id,
      created_at: now,
      started_at: null,
      finished_at: null,
    };
    await this.db.insertInto('imports').values(row).execute();
    return this.toImport(row, null);
  }

  /** Enqueues the import's job; an import runs once (409 after that). */
  async run(principal: Principal, row: ImportRow): Promise<Import> {
    await this.uploadOf(principal, row.upload_id);
    // The state and job_id in the job's own transaction: a worker never meets the job without them (J2).
    const job = await this.kernel.jobs.enqueue(
      IMPORT_JOB,
      { importId: row.id },
      {
        createdBy: principal.userId,
        alongside: async (j, trx) => {
          const res = await importsDb(trx)
            .updateTable('imports')
            .set({ state: 'queued', job_id: j.id })
            .where('id', '=', row.id)
            .where('state', '=', 'created')
            .executeTakeFirst();
          if (Number(res.numUpdatedRows) === 0) throw new AppError('IMPORT_NOT_RUNNABLE', { params: { state: row.state } });
        },
      },
    );
    return this.toImport({ ...row, state: 'queued', job_id: job.id }, job);
  }

  page(principal: Principal, limit: number, cursor: string | undefined, all: boolean): Promise<{ rows: ImportRow[]; next: string | null }> {
    return ownedPage<ImportRow>(this.kernel.db, 'imports', principal, IMPORTS_ADMIN, { limit, cursor, all });
  }

  /** As for exports: until the handler wrote a final state, the job tells how far it got and why it stopped. */
  async resolve(row: ImportRow): Promise<Import> {
    if (FINAL.has(row.state as ImportState) || !row.job_id) return this.toImport(row, null);
    const job = await this.kernel.jobs.get(row.job_id);
    if (job && FINAL.has(job.state)) {
      const fresh = (await this.db.selectFrom('imports').selectAll().where('id', '=', row.id).executeTakeFirst()) ?? row;
      if (FINAL.has(fresh.state as ImportState)) return this.toImport(fresh, job);
      const patch = {
        state: job.state,
        error_code: job.error?.code ?? null,
        error_message: job.error?.message ?? null,
        finished_at: job.finishedAt ?? this.kernel.now(),
      };
      await this.db.updateTable('imports').set(patch).where('id', '=', row.id).where('state', 'in', ['queued', 'running']).execute();
      return this.toImport({ ...fresh, ...patch }, job);
    }
    return this.toImport(row, job);
  }

  toImport(row: ImportRow, job: Job | null): Import {
    const state = row.state as ImportState;
    return {
      id: row.id,
      uploadId: row.upload_id,
      connectionId: row.connection_id,
      table: row.table_ref,
      mapping: JSON.parse(row.mapping) as Record<string, string | null>,
      mode: row.mode,
      upsertKey: row.upsert_key ? (JSON.parse(row.upsert_key) as string[]) : null,
      atomic: Boolean(Number(row.atomic)),
      batchSize: Number(row.batch_size),
      dryRun: Boolean(Number(row.dry_run)),
      state,
      jobId: row.job_id,
      progress: state === 'succeeded' ? 1 : (job?.progress ?? null),
      counts: { total: Number(row.total), inserted: Number(row.inserted), updated: Number(row.updated), refused: Number(row.refused) },
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
      createdBy: { type: row.owner_type, id: row.owner_id },
      createdAt: Number(row.created_at),
      startedAt: num(row.started_at),
      finishedAt: num(row.finished_at),
    };
  }

  /** The error report the row names, once the run has begun writing it. */
  async report(row: ImportRow): Promise<{ size: number; stream: Readable }> {
    const opened = row.state === 'created' || row.state === 'queued' ? null : await this.storedReport(row.id).open(row.report_key ?? null);
    if (!opened) throw new AppError('IMPORT_NO_REPORT', { params: { state: row.state } });
    return opened;
  }

  /**
   * Removes error reports of imports that finished longer ago than the retention, or whose
   * import is gone; of a finished import kept, the reports its row does not name (an attempt's
   * that lost the job). Uploads expire in the file store itself (their `expiresAt`).
   */
  async sweep(): Promise<number> {
    const { retentionMs } = await this.settings();
    const now = this.kernel.now();
    const ids = [...new Set((await this.kernel.files.list(REPORTS_PREFIX)).map((f) => f.key.slice(REPORTS_PREFIX.length).split('/')[0]!))];
    const kept = new Map<string, { finished: boolean; reportKey: string | null }>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db
        .selectFrom('imports')
        .select(['id', 'state', 'finished_at', 'report_key'])
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
      for (const r of rows)
        if (r.finished_at === null || Number(r.finished_at) >= now - retentionMs)
          kept.set(r.id, { finished: FINAL.has(r.state as ImportState), reportKey: r.report_key ?? null });
    }
    let removed = this.sweepScratch(now);
    for (const id of ids) {
      const k = kept.get(id);
      // A running import's name may be about to move to a report still being written.
      if (!k) removed += await this.storedReport(id).remove();
      else if (k.finished) removed += await this.storedReport(id).removeAllBut(k.reportKey);
    }
    return removed;
  }

  /**
   * Removes this machine's scratch files untouched for a day: a process killed while scanning an
   * upload, copying one back or appending a report leaves them (they are removed in `finally`
   * otherwise), and nothing else would. A file in use is written or was opened long before.
   */
  private sweepScratch(now: number): number {
    let removed = 0;
    let names: string[];
    try {
      names = readdirSync(this.workDir);
    } catch {
      return 0;
    }
    for (const name of names) {
      const path = join(this.workDir, name);
      try {
        if (statSync(path).mtimeMs < now - SCRATCH_MAX_AGE_MS) (rmSync(path, { force: true }), removed++);
      } catch {
        // Gone meanwhile (its import ended).
      }
    }
    return removed;
  }
}

const SCRATCH_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * Retryable: when nobody took the job over yet (its lease ran out, the reaper has not come), the
 * runner's fenced write puts it back in the queue, as the reaper would; when another attempt
 * holds it, that write changes nothing either.
 */
const leaseLost = () => new JobError('IMPORT_LEASE_LOST', 'This attempt no longer held the job; it stopped and changed nothing more.');

export function toUpload(row: UploadRow): Upload {
  return {
    id: row.id,
    fileName: row.file_name,
    format: row.format,
    size: Number(row.size),
    delimiter: row.delimiter,
    columns: JSON.parse(row.columns) as DetectedColumn[],
    sampleRows: JSON.parse(row.sample) as Array<Record<string, unknown>>,
    rowCount: Number(row.row_count),
    problems: Number(row.problems),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const importsServiceRef = defineServiceRef<ImportsService>('imports');
