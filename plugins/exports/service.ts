import { createReadStream, rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { defineServiceRef, AppError, type ErrorIssue, type Job, type Kernel, newId, ownedBy, ownedPage, ownerOf, type Principal } from '../../kernel/api.js';
import { readsColumn } from '../../engine/rows/index.js';
import { connectionsRef } from '../connections/provides.js';
import { schemaRef } from '../schema/provides.js';
import { attemptKey, downloadName, EXPORTS_PREFIX, exportIdOfKey, legacyFile } from './files.js';
import { FORMAT_INFO, type ExportFormat } from './formats/index.js';
import { planRead } from './plan.js';
import type { ReadSpec } from './read.js';
import { writeRows } from './run.js';
import type { ExportedFile, ExportsProvides, ExportToFile } from './provides.js';
import type { Filter } from './query.js';
import type { CreateExport, Export, ExportState } from './schemas.js';
import { exportsDb, type ExportRow, type ExportsDb } from './tables.js';

export const EXPORT_JOB = 'export.run';
export const EXPORTS_RUN = 'exports.run';
export const EXPORTS_ADMIN = 'exports.admin';
export const DATA_READ = 'data.read';
/** Settings key `exports`: `{ retentionHours }` (default 24). */
export const SETTINGS_KEY = 'exports';
const DEFAULT_RETENTION_HOURS = 24;

const FINAL = new Set<ExportState>(['ready', 'failed', 'cancelled', 'expired']);
const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const num = (v: number | null) => (v === null ? null : Number(v));

export class ExportsService implements ExportsProvides {
  readonly db: ExportsDb;

  constructor(readonly kernel: Kernel) {
    this.db = exportsDb(kernel.db);
  }

  async retentionMs(): Promise<number> {
    const s = await this.kernel.settings.get<{ retentionHours?: number }>(SETTINGS_KEY).catch(() => null);
    const h = typeof s?.retentionHours === 'number' && s.retentionHours > 0 ? s.retentionHours : DEFAULT_RETENTION_HOURS;
    return h * 3600_000;
  }

  /** Checks the request against the table and the caller's grants (now): the read it makes, or the refusal. */
  async prepare(principal: Principal, body: CreateExport): Promise<{ spec: ReadSpec; tableRef: string }> {
    const info = await this.kernel.plugin(connectionsRef).info(body.connectionId);
    const table = await this.kernel.plugin(schemaRef).table(body.connectionId, body.table);
    if (!table)
      throw new AppError('NOT_FOUND', {
        message: 'The connection has no table of this ref (introspect it again if it is new).',
        params: { table: body.table },
      });
    const scope = principal.permissions.grantOn(DATA_READ, body.connectionId, table.ref);
    if (scope === null) throw new AppError('FORBIDDEN', { params: { permission: DATA_READ, connectionId: body.connectionId, table: table.ref } });
    // The data plugin's reading rule (DA2): personal columns need a grant on the whole table, the
    // key is readable wherever the table is; secret columns never leave, whatever the grant.
    const pk = new Set(table.primaryKey?.columns ?? []);
    const readable = new Set(table.columns.filter((c) => !c.display.secret && readsColumn(c, pk, scope)).map((c) => c.name));
    const issues: ErrorIssue[] = [];
    const spec = planRead(info.dialect, table, readable, body, issues);
    if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
    return { spec, tableRef: table.ref };
  }

  async check(principal: Principal, input: ExportToFile): Promise<void> {
    await this.prepare(principal, input);
  }

  /** Checks the request against the table and the caller's grants, stores the export and enqueues its job. */
  async create(principal: Principal, body: CreateExport): Promise<Export> {
    const { spec, tableRef } = await this.prepare(principal, body);
    const owner = ownerOf(principal);
    const now = this.kernel.now();
    const row = newExportRow(body, tableRef, spec, owner, now, {
      // People open files in spreadsheets; programs (API keys) want the values as they are.
      formulaSafe: body.formulaSafe ?? owner.type === 'user',
      state: 'queued',
      startedAt: null,
    });
    // The row and its job_id in the job's own transaction: a worker never meets the job without them (J2).
    const job = await this.kernel.jobs.enqueue(
      EXPORT_JOB,
      { exportId: row.id },
      {
        createdBy: principal.userId,
        alongside: async (j, trx) =>
          void (await exportsDb(trx)
            .insertInto('exports')
            .values({ ...row, job_id: j.id })
            .execute()),
      },
    );
    return this.toExport({ ...row, job_id: job.id }, job);
  }

  /**
   * ExportsProvides.exportToFile: the export as another plugin asks for it (a scheduled report),
   * with the principal's grants as they are now, streamed into the file store in this call (no
   * job of its own: the caller's job is the one running) through the export job's own writer. The
   * file is an export of the principal's like any other: listed in GET /exports, downloadable by
   * its owner, removed after the retention.
   */
  async exportToFile(principal: Principal, input: ExportToFile, opts: { signal?: AbortSignal } = {}): Promise<ExportedFile> {
    const { spec, tableRef } = await this.prepare(principal, input);
    const { db, info } = await this.kernel.plugin(connectionsRef).source(input.connectionId);
    const owner = ownerOf(principal);
    const startedAt = this.kernel.now();
    const row = newExportRow(input, tableRef, spec, owner, startedAt, { formulaSafe: input.formulaSafe ?? true, state: 'running', startedAt });
    await this.db.insertInto('exports').values(row).execute();
    const key = attemptKey(row.id, 1, newId(), input.format);
    const out = new PassThrough({ highWaterMark: 256 * 1024 });
    const storing = this.kernel.files.put(key, out);
    storing.catch((err: Error) => out.destroy(err));
    const signal = opts.signal ?? new AbortController().signal;
    let rowCount: number;
    let size: number;
    try {
      rowCount = await writeRows(db, info.dialect, spec, input.format, out, signal, () => undefined, row.formula_safe === 1);
      size = (await storing).size;
    } catch (err) {
      out.destroy();
      await storing.catch(() => undefined);
      await this.db
        .updateTable('exports')
        .set({
          state: 'failed',
          finished_at: this.kernel.now(),
          error_code: (err as AppError).code ?? 'EXPORT_FAILED',
          error_message: String((err as Error).message).slice(0, 1000),
        })
        .where('id', '=', row.id)
        .execute();
      throw err;
    }
    const finishedAt = this.kernel.now();
    const expiresAt = finishedAt + (await this.retentionMs());
    await this.db
      .updateTable('exports')
      .set({ state: 'ready', file_key: key, row_count: rowCount, bytes: size, finished_at: finishedAt, expires_at: expiresAt })
      .where('id', '=', row.id)
      .execute();
    await this.kernel.files.expire(key, expiresAt);
    return {
      exportId: row.id,
      fileKey: key,
      fileName: downloadName(tableRef, finishedAt, input.format),
      contentType: FORMAT_INFO[input.format].contentType,
      format: input.format,
      size,
      rowCount,
      expiresAt,
      open: async () => (await this.kernel.files.open(key))?.stream ?? null,
    };
  }

  /** Owners see their own exports; exports.admin holders see every one. Anything else is 404. */
  async visible(principal: Principal, id: string): Promise<ExportRow> {
    const row = ownedBy(principal, await this.db.selectFrom('exports').selectAll().where('id', '=', id).executeTakeFirst(), EXPORTS_ADMIN);
    if (!row) throw new AppError('NOT_FOUND', { message: 'No export with this id.' });
    return row;
  }

  page(principal: Principal, limit: number, cursor: string | undefined, all: boolean): Promise<{ rows: ExportRow[]; next: string | null }> {
    return ownedPage<ExportRow>(this.kernel.db, 'exports', principal, EXPORTS_ADMIN, { limit, cursor, all });
  }

  /**
   * The export as the API shows it. Until the handler has written a final state, the job says
   * how far it got, and why it failed or stopped (a crash leaves no handler to write it); a
   * final job state read here is kept on the row.
   */
  async resolve(row: ExportRow): Promise<Export> {
    if (FINAL.has(row.state as ExportState) || !row.job_id) return this.toExport(row, null);
    const job = await this.kernel.jobs.get(row.job_id);
    if (job && (job.state === 'failed' || job.state === 'cancelled')) {
      const patch = {
        state: job.state,
        error_code: job.error?.code ?? null,
        error_message: job.error?.message ?? null,
        finished_at: job.finishedAt ?? this.kernel.now(),
      };
      await this.db.updateTable('exports').set(patch).where('id', '=', row.id).where('state', 'in', ['queued', 'running']).execute();
      return this.toExport({ ...row, ...patch }, job);
    }
    if (job?.state === 'succeeded') {
      // The handler wrote `ready` just before the job finished; this row was read before that.
      const fresh = await this.db.selectFrom('exports').selectAll().where('id', '=', row.id).executeTakeFirst();
      if (fresh) return this.toExport(fresh, job);
    }
    return this.toExport(row, job);
  }

  toExport(row: ExportRow, job: Job | null): Export {
    const state = row.state as ExportState;
    const finishedAt = num(row.finished_at);
    return {
      id: row.id,
      connectionId: row.connection_id,
      table: row.table_ref,
      format: row.format,
      columns: parse<string[]>(row.columns) ?? [],
      filter: parse<Filter>(row.filter),
      search: parse<StoredSearch>(row.search)?.text ?? null,
      sort: row.sort,
      formulaSafe: Number(row.formula_safe) === 1,
      state,
      jobId: row.job_id,
      progress: state === 'ready' ? 1 : (job?.progress ?? null),
      rowCount: num(row.row_count),
      bytes: num(row.bytes),
      fileName: state === 'ready' && finishedAt !== null ? downloadName(row.table_ref, finishedAt, row.format) : null,
      error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
      createdBy: { type: row.owner_type, id: row.owner_id },
      createdAt: Number(row.created_at),
      startedAt: num(row.started_at),
      finishedAt,
      expiresAt: num(row.expires_at),
    };
  }

  /** The finished file, from the file store (whichever replica wrote it): 409 while it is not ready, 410 once it expired. */
  async file(row: ExportRow): Promise<{ stream: Readable; size: number; name: string; format: ExportFormat }> {
    const exp = await this.resolve(row);
    const expired = exp.state === 'expired' || (exp.expiresAt !== null && exp.expiresAt <= this.kernel.now());
    if (expired) throw new AppError('EXPORT_EXPIRED', { params: { expiredAt: exp.expiresAt } });
    if (exp.state !== 'ready') throw new AppError('EXPORT_NOT_READY', { params: { state: exp.state } });
    const opened = row.file_key
      ? await this.kernel.files.open(row.file_key).then((o) => o && { stream: o.stream, size: o.file.size })
      : await this.legacyOpen(row);
    if (!opened) throw new AppError('EXPORT_EXPIRED', { message: 'The export file is no longer kept.' });
    return { stream: opened.stream, size: opened.size, name: exp.fileName!, format: row.format };
  }

  /** An export made ready before the file store (no `file_key`): its file where it was written, if this replica has it (EX7). */
  private async legacyOpen(row: ExportRow): Promise<{ stream: Readable; size: number } | null> {
    const path = legacyFile(this.kernel.config.dataDir, row.id, row.format);
    const st = path ? await stat(path).catch(() => null) : null;
    if (!path || !st?.isFile()) return null;
    return { stream: createReadStream(path), size: st.size };
  }

  /**
   * Removes expired files (their rows become `expired`) and files no live export owns: the file
   * of an attempt that did not make its export ready, the file of a row that is gone. Files of
   * an export still queued or running stay (an attempt may be about to name its file).
   */
  async sweep(): Promise<number> {
    const now = this.kernel.now();
    const due = await this.db.selectFrom('exports').select(['id', 'format', 'file_key']).where('state', '=', 'ready').where('expires_at', '<=', now).execute();
    for (const r of due) {
      if (r.file_key) await this.kernel.files.delete(r.file_key);
      else this.removeLegacy(r.id, r.format);
      await this.db.updateTable('exports').set({ state: 'expired' }).where('id', '=', r.id).where('state', '=', 'ready').execute();
    }
    const files = await this.kernel.files.list(EXPORTS_PREFIX);
    const ids = [...new Set(files.map((f) => exportIdOfKey(f.key)))];
    const live = new Map<string, { state: string; fileKey: string | null }>();
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await this.db
        .selectFrom('exports')
        .select(['id', 'state', 'file_key'])
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
      for (const r of rows) live.set(r.id, { state: r.state, fileKey: r.file_key ?? null });
    }
    let removed = due.length;
    for (const f of files) {
      const owner = live.get(exportIdOfKey(f.key));
      const keep = owner !== undefined && (owner.state === 'queued' || owner.state === 'running' || (owner.state === 'ready' && owner.fileKey === f.key));
      if (!keep && (await this.kernel.files.delete(f.key))) removed++;
    }
    return removed;
  }

  /** An expired export's file from before the file store, should this replica hold it. */
  private removeLegacy(id: string, format: ExportFormat): void {
    const path = legacyFile(this.kernel.config.dataDir, id, format);
    if (path) rmSync(path, { force: true });
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const exportsServiceRef = defineServiceRef<ExportsService>('exports');

/** The `search` column: the text and the columns it looks in (EX9). */
export interface StoredSearch {
  text: string;
  columns: string[];
}

/** A stored export as it starts: asked for through POST /exports (queued) or by another plugin (running now). */
function newExportRow(
  input: Pick<CreateExport, 'connectionId' | 'format' | 'filter' | 'search' | 'sort'>,
  tableRef: string,
  spec: ReadSpec,
  owner: { type: ExportRow['owner_type']; id: string },
  now: number,
  start: { formulaSafe: boolean; state: ExportRow['state']; startedAt: number | null },
): ExportRow {
  return {
    id: newId(now),
    connection_id: input.connectionId,
    table_ref: tableRef,
    format: input.format,
    columns: JSON.stringify(spec.columns.map((c) => c.name)),
    filter: input.filter && Object.keys(input.filter).length ? JSON.stringify(input.filter) : null,
    search: input.search ? JSON.stringify({ text: input.search, columns: spec.searched } satisfies StoredSearch) : null,
    sort: input.sort ?? null,
    formula_safe: start.formulaSafe ? 1 : 0,
    state: start.state,
    job_id: null,
    owner_type: owner.type,
    owner_id: owner.id,
    row_count: null,
    bytes: null,
    error_code: null,
    error_message: null,
    created_at: now,
    started_at: start.startedAt,
    finished_at: null,
    expires_at: null,
  };
}
