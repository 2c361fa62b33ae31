import { createHash } from 'node:crypto';
import {
  actorOf,
  AppError,
  constantTimeEqual,
  defineServiceRef,
  hashToken,
  JobError,
  type JobContext,
  type Kernel,
  newId,
  ownedBy,
  ownedPage,
  ownerOf,
  type Principal,
} from '../../kernel/api.js';
import { listRows, parseListParams, primaryKeyColumns, rowDialect } from '../../engine/rows/index.js';
import { connectionsRef } from '../connections/provides.js';
import { dataRef, type RowChange } from '../data/provides.js';
import { type MadeRef, type MadeState, pagesRef, slugify } from '../pages/provides.js';
import { schemaRef, type EffectiveTable } from '../schema/provides.js';
import { type Change, type ChangeKey, parseAnswer } from './changes.js';
import { LlmConfigStore } from './config.js';
import { buildPrompt, sampleable, type PromptMessage, type PromptTable } from './prompt.js';
import { complete, listModels, providerError } from './provider.js';
import type { Diff, DiffChange, Made, Run, RunState, Summary } from './schemas.js';
import { llmDb, type RunRow } from './tables.js';

export const LLM_USE = 'llm.use';
export const LLM_ADMIN = 'llm.admin';
export const LLM_EXECUTE_JOB = 'llm.execute';
export const LLM_CLEANUP_JOB = 'llm.cleanup';
/** The job's own limit, whatever `limits.timeoutMs` says (one attempt). */
export const EXECUTE_LIMIT_MS = 120_000;
/** An applied run's undo token (decisions LL7). */
export const UNDO_TTL_MS = 24 * 3600_000;
/** Runs left unapplied this long are discarded by the cleanup (decisions LL11). */
export const DISCARD_AFTER_MS = 7 * 24 * 3600_000;
const MODELS_TTL_MS = 5 * 60_000;
const DAY_MS = 24 * 3600_000;
const MAX_DEFAULT_TABLES = 20;

const DATA_READ = 'data.read';
const DATA_WRITE = 'data.write';
const PAGES_WRITE = 'pages.write';

/** States a run may be answered (again) from: an answer replaces the last one until applied. */
const ANSWERABLE: RunState[] = ['prompted', 'answered', 'failed', 'invalid', 'parsed'];
const EXECUTABLE: RunState[] = ['prompted', 'failed', 'invalid', 'parsed'];
/** States the cleanup discards once untouched for DISCARD_AFTER_MS (not running: its job has it). */
const DISCARDABLE: RunState[] = ['prompted', 'answered', 'parsed', 'invalid', 'failed'];
const TABLE_PAGE_KINDS = ['list', 'detail', 'form'];

/** What an applied run made in the pages plugin, as made (their updatedAt then): undo removes them while unchanged. */
interface MadeStored {
  pages: Array<MadeRef & { slug: string; title: string }>;
  views: Array<MadeRef & { viewId: string; name: string }>;
}
const NOTHING_MADE: MadeStored = { pages: [], views: [] };

const wrongState = (state: string, allowed: readonly string[]) =>
  new AppError('CONFLICT', { message: `The run is ${state}; this needs a run that is ${allowed.join(' or ')}.`, params: { reason: 'wrong-state', state } });
const notFound = () => new AppError('NOT_FOUND', { message: 'No such run.' });

const json = <T>(s: string | null, fallback: T): T => (s === null ? fallback : (JSON.parse(s) as T));

/** The runs: prompt, answer, parse, diff, apply and undo (issue 32 §4). */
export class LlmService {
  readonly config: LlmConfigStore;
  private models: { key: string; at: number; models: Array<{ id: string }> } | null = null;
  private lastCleanup = 0;

  constructor(private readonly kernel: Kernel) {
    this.config = new LlmConfigStore(kernel);
    // A run's prompt and answer are about that database: they go with it.
    kernel.plugin(connectionsRef).onRemove(async (id, trx) => {
      const res = await llmDb(trx).deleteFrom('llm_runs').where('connection_id', '=', id).executeTakeFirst();
      return { llmRuns: Number(res.numDeletedRows) };
    });
  }

  private get db() {
    return llmDb(this.kernel.db);
  }
  private get box() {
    return this.kernel.secrets('llm.runs');
  }
  /** The undo token at rest (LL10): only who may undo reads it back. */
  private get undoBox() {
    return this.kernel.secrets('llm.undo');
  }

  /** A new config drops the models kept for the old one. */
  forgetModels(): void {
    this.models = null;
  }

  /** GET /llm/models: kept 5 minutes per provider; [] unless the mode is provider. */
  async listModels(): Promise<Array<{ id: string }>> {
    const stored = await this.config.stored();
    if (stored.mode !== 'provider' || !stored.provider) return [];
    const key = JSON.stringify(stored.provider);
    const now = this.kernel.now();
    if (this.models && this.models.key === key && now - this.models.at < MODELS_TTL_MS) return this.models.models;
    const models = await listModels(this.config.settingsOf(stored));
    this.models = { key, at: now, models };
    return models;
  }

  /** POST /llm/config/test: one tiny completion with the stored settings. */
  async test(): Promise<{ ok: true; latencyMs: number; model: string }> {
    const s = await this.config.provider();
    const started = performance.now();
    await complete(s, [{ role: 'user', content: 'Reply with the word OK.' }], { maxTokens: 5 });
    return { ok: true, latencyMs: Math.round(performance.now() - started), model: s.model };
  }

  // ---- runs ----

  toRun(row: RunRow): Run {
    return {
      id: row.id,
      state: row.state as RunState,
      mode: row.mode,
      request: row.request,
      connectionId: row.connection_id,
      tables: json<string[]>(row.tables, []),
      includeSampleRows: Number(row.sample_rows),
      error: json<Run['error']>(row.error, null),
      problems: row.state === 'invalid' ? json<string[]>(row.problems, []) : [],
      summary: json<Summary | null>(row.summary, null),
      jobId: row.job_id,
      appliedAt: row.applied_at === null ? null : Number(row.applied_at),
      undoExpiresAt: row.undo_expires_at === null ? null : Number(row.undo_expires_at),
      made: madeView(json<MadeStored>(row.made, NOTHING_MADE)),
      createdBy: row.owner_id,
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    };
  }

  /**
   * The run as this caller reads it: with `undoToken` while the run is applied, the token unexpired,
   * and the caller is who applied it or holds llm.admin, those who may undo it (decisions LL10).
   */
  viewFor(principal: Principal, row: RunRow): Run {
    const run = this.toRun(row);
    if (row.state !== 'applied' || row.undo_token === null || row.undo_expires_at === null || Number(row.undo_expires_at) <= this.kernel.now()) return run;
    if (!this.mayUndo(principal, row)) return run;
    return { ...run, undoToken: this.undoBox.decrypt(row.undo_token) };
  }

  private mayUndo(principal: Principal, row: RunRow): boolean {
    const actor = actorOf(principal);
    return (row.applied_by_type === actor.type && row.applied_by_id === actor.id) || principal.permissions.has(LLM_ADMIN);
  }

  /** The run when the caller made it or holds llm.admin; 404 otherwise. */
  async visible(principal: Principal, id: string): Promise<RunRow> {
    const row = await this.db.selectFrom('llm_runs').selectAll().where('id', '=', id).executeTakeFirst();
    const mine = ownedBy(principal, row, LLM_ADMIN);
    if (!mine) throw notFound();
    return this.settled(mine);
  }

  /** A running run whose job ended without its handler writing (a crash, a cancel) is failed with the job's error. */
  private async settled(row: RunRow): Promise<RunRow> {
    if (row.state !== 'running' || !row.job_id) return row;
    const job = await this.kernel.jobs.get(row.job_id);
    if (!job || (job.state !== 'failed' && job.state !== 'cancelled')) return row;
    const error = job.error ?? { code: 'JOB_CANCELLED', message: 'The job was cancelled.' };
    await this.update(row.id, { state: 'failed', error: JSON.stringify(error) }, ['running']);
    return this.reload(row.id);
  }

  page(principal: Principal, limit: number, cursor: string | undefined) {
    return ownedPage<RunRow>(this.kernel.db, 'llm_runs', principal, LLM_ADMIN, { limit, cursor, all: true });
  }

  /** The tables of a new run: each read by the caller (403 otherwise, 404 when missing); absent, the ones it reads (20 at most). */
  private async runTables(principal: Principal, connectionId: string, refs: readonly string[] | undefined): Promise<PromptTable[]> {
    const data = this.kernel.plugin(dataRef);
    const schema = await this.kernel.plugin(schemaRef).effective(connectionId);
    const wanted = refs
      ? [...new Set(refs)]
      : schema.model.tables.map((t) => t.ref).filter((ref) => principal.permissions.grantOn(DATA_READ, connectionId, ref));
    if (!refs && wanted.length === 0) throw new AppError('FORBIDDEN', { message: 'You read no table of this connection.', params: { permission: DATA_READ } });
    const out: PromptTable[] = [];
    for (const [i, ref] of wanted.slice(0, MAX_DEFAULT_TABLES).entries()) {
      if (!principal.permissions.grantOn(DATA_READ, connectionId, ref)) {
        throw new AppError('FORBIDDEN', { message: `You may not read the table "${ref}".`, params: { permission: DATA_READ, index: i } });
      }
      const view = await data.tableView(principal, connectionId, ref);
      if (!view) throw new AppError('NOT_FOUND', { message: `No table "${ref}" on this connection.`, params: { index: i } });
      out.push({ table: view.table, readable: view.readable, samples: [] });
    }
    return out;
  }

  /** Up to `n` rows of each table, in the columns that may go into a prompt (LL5). */
  private async withSamples(connectionId: string, tables: PromptTable[], n: number): Promise<{ dialect: string; tables: PromptTable[] }> {
    const connections = this.kernel.plugin(connectionsRef);
    const info = await connections.info(connectionId);
    if (n === 0) return { dialect: info.dialect, tables };
    const signer = this.kernel.signer('llm.sample');
    const filled = await connections.withSource(connectionId, async (db, source) => {
      const d = rowDialect(source.dialect);
      const out: PromptTable[] = [];
      for (const t of tables) {
        const safe = sampleable(t.readable);
        if (safe.length === 0) {
          out.push(t);
          continue;
        }
        const params = parseListParams({ limit: String(n) }, { table: t.table, readable: new Set(safe.map((c) => c.name)) });
        const page = await listRows(db, d, t.table, params, { output: safe, searchable: [], cursors: signer, recordIds: false });
        const names = safe.map((c) => c.name);
        out.push({ ...t, samples: page.rows.map((r) => Object.fromEntries(names.map((name) => [name, r[name]]))) });
      }
      return out;
    });
    return { dialect: info.dialect, tables: filled };
  }

  /** Each table's pages the caller sees (20 at most), so a create-view can name one by id. */
  private async withPages(principal: Principal, connectionId: string, tables: PromptTable[]): Promise<PromptTable[]> {
    const pagesApi = this.kernel.plugin(pagesRef);
    const all = await pagesApi.all();
    return tables.map((t) => {
      const pages = all
        .filter((p) => p.connectionId === connectionId && p.table === t.table.ref && TABLE_PAGE_KINDS.includes(p.kind) && pagesApi.canSee(principal, p))
        .slice(0, 20)
        .map((p) => ({ id: p.id, title: p.title, kind: p.kind }));
      return pages.length ? { ...t, pages } : t;
    });
  }

  async create(
    principal: Principal,
    input: { request: string; connectionId: string; tables?: string[] | undefined; includeSampleRows: number; mode?: 'provider' | 'manual' | undefined },
  ): Promise<Run> {
    const stored = await this.config.stored();
    if (stored.mode === 'off') throw new AppError('LLM_DISABLED');
    await this.kernel.plugin(connectionsRef).info(input.connectionId);
    const tables = await this.runTables(principal, input.connectionId, input.tables);
    const { dialect, tables: sampled } = await this.withSamples(input.connectionId, tables, input.includeSampleRows);
    const filled = await this.withPages(principal, input.connectionId, sampled);
    const prompt = buildPrompt({ dialect, tables: filled, request: input.request });
    if (prompt.chars > stored.limits.maxPromptChars) {
      throw new AppError('VALIDATION_FAILED', {
        issues: [
          {
            path: 'body.tables',
            code: 'prompt-too-long',
            message: `The prompt would be ${prompt.chars} characters, over the limit of ${stored.limits.maxPromptChars}: choose fewer tables or fewer sample rows.`,
          },
        ],
      });
    }
    const now = this.kernel.now();
    const owner = ownerOf(principal);
    const row: RunRow = {
      id: newId(now),
      owner_type: owner.type,
      owner_id: owner.id,
      state: 'prompted',
      mode: input.mode ?? (stored.mode === 'provider' ? 'provider' : 'manual'),
      request: input.request,
      connection_id: input.connectionId,
      tables: JSON.stringify(filled.map((t) => t.table.ref)),
      sample_rows: input.includeSampleRows,
      prompt: this.box.encrypt(JSON.stringify(prompt.messages)),
      answer: null,
      changes: null,
      problems: null,
      error: null,
      summary: null,
      job_id: null,
      undo_hash: null,
      undo_token: null,
      made: null,
      applied_by_type: null,
      applied_by_id: null,
      applied_at: null,
      undo_expires_at: null,
      created_at: now,
      updated_at: now,
    };
    await this.db.insertInto('llm_runs').values(row).execute();
    void this.cleanupSoon(now);
    return this.toRun(row);
  }

  messagesOf(row: RunRow): PromptMessage[] {
    return JSON.parse(this.box.decrypt(row.prompt)) as PromptMessage[];
  }

  prompt(row: RunRow): { messages: PromptMessage[]; text: string; chars: number } {
    const messages = this.messagesOf(row);
    const text = messages.map((m) => `### ${m.role}\n${m.content}`).join('\n\n');
    return { messages, text, chars: text.length };
  }

  private async update(id: string, patch: Partial<RunRow>, fromStates?: readonly string[]): Promise<boolean> {
    let q = this.db
      .updateTable('llm_runs')
      .set({ ...patch, updated_at: this.kernel.now() })
      .where('id', '=', id);
    if (fromStates) q = q.where('state', 'in', [...fromStates]);
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  private async reload(id: string): Promise<RunRow> {
    const row = await this.db.selectFrom('llm_runs').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound();
    return row;
  }

  /** POST …/execute: 409 LLM_NOT_CONFIGURED unless the mode is provider; the job calls it. */
  async execute(principal: Principal, row: RunRow): Promise<{ run: Run; jobId: string }> {
    await this.config.provider();
    if (!EXECUTABLE.includes(row.state as RunState)) throw wrongState(row.state, EXECUTABLE);
    const job = await this.kernel.jobs.enqueue(
      LLM_EXECUTE_JOB,
      { runId: row.id },
      {
        createdBy: principal.userId,
        maxAttempts: 1,
        alongside: async (j, trx) => {
          const res = await llmDb(trx)
            .updateTable('llm_runs')
            .set({ state: 'running', mode: 'provider', job_id: j.id, error: null, updated_at: this.kernel.now() })
            .where('id', '=', row.id)
            .where('state', '=', row.state)
            .executeTakeFirst();
          if (Number(res.numUpdatedRows) !== 1) throw wrongState('changing', EXECUTABLE);
        },
      },
    );
    return { run: this.toRun(await this.reload(row.id)), jobId: job.id };
  }

  /** The job `llm.execute`: one call, 120 s at most; the answer stored and parsed; a failure kept on the run. */
  async runExecute(ctx: JobContext<{ runId: string }>): Promise<unknown> {
    const row = await this.reload(ctx.payload.runId);
    if (row.state !== 'running') return { skipped: row.state };
    try {
      const s = await this.config.provider();
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(EXECUTE_LIMIT_MS)]);
      const answer = await complete({ ...s, timeoutMs: Math.min(s.timeoutMs, EXECUTE_LIMIT_MS) }, this.messagesOf(row), { signal });
      await this.update(row.id, { state: 'answered', answer: this.box.encrypt(answer) }, ['running']);
      const parsed = await this.parseInto(await this.reload(row.id), answer, ['answered']);
      return { state: parsed.state };
    } catch (err) {
      const e = err instanceof AppError ? err : providerError('unreachable', null);
      const error = { code: e.code, message: e.message };
      await this.update(row.id, { state: 'failed', error: JSON.stringify(error) }, ['running', 'answered']);
      throw new JobError(e.code, e.message, false);
    }
  }

  /** Parses an answer into the run: parsed (with the diff's summary) or invalid (with why). */
  private async parseInto(row: RunRow, text: string, fromStates: readonly string[]): Promise<RunRow> {
    const limits = await this.config.limits();
    const parsed = parseAnswer(text, json<string[]>(row.tables, []), limits.maxChanges);
    const patch: Partial<RunRow> = parsed.ok
      ? { state: 'parsed', answer: this.box.encrypt(text), changes: JSON.stringify(parsed.changes), problems: null, error: null }
      : { state: 'invalid', answer: this.box.encrypt(text), changes: null, problems: JSON.stringify(parsed.problems), summary: null, error: null };
    if (!(await this.update(row.id, patch, fromStates))) throw wrongState((await this.reload(row.id)).state, fromStates);
    return this.reload(row.id);
  }

  /** POST …/response: manual mode's pasted answer. */
  async respond(row: RunRow, text: string): Promise<Run> {
    if (!ANSWERABLE.includes(row.state as RunState)) throw wrongState(row.state, ANSWERABLE);
    return this.toRun(await this.parseInto(row, text, ANSWERABLE));
  }

  /** The record id of a change's key (its primary key columns by name, or a record id as /data takes it). */
  private recordIdOf(table: EffectiveTable, key: ChangeKey): { recordId?: string; problem?: string } {
    if (typeof key === 'string' || typeof key === 'number') return { recordId: String(key) };
    const pk = primaryKeyColumns(table);
    if (pk.length === 0) return { problem: 'The table has no primary key: its rows cannot be changed.' };
    const missing = pk.filter((c) => !(c.name in key)).map((c) => c.name);
    const extra = Object.keys(key).filter((k) => !pk.some((c) => c.name === k));
    if (missing.length || extra.length) return { problem: `key: give exactly the primary key column(s) ${pk.map((c) => c.name).join(', ')}.` };
    if (pk.length === 1 && pk[0]!.type !== 'binary' && pk[0]!.type !== 'json') return { recordId: String(key[pk[0]!.name]) };
    return { recordId: Buffer.from(JSON.stringify(pk.map((c) => key[c.name])), 'utf8').toString('base64url') };
  }

  /**
   * The diff of a parsed run, now, with the caller's grants: rows read as they are, every change
   * dry-run checked by the data plugin (types, writable and required columns, the write grant),
   * secret columns refused (LL6), and a hash of all of it that apply must confirm.
   */
  async diff(principal: Principal, row: RunRow): Promise<{ diff: Diff; changes: Change[]; rowChanges: Map<number, RowChange> }> {
    if (row.state !== 'parsed') throw wrongState(row.state, ['parsed']);
    return this.diffOf(principal, row.connection_id, json<Change[]>(row.changes, []), json<string[]>(row.tables, []));
  }

  async diffOf(principal: Principal, connectionId: string, changes: Change[], runTables: readonly string[]) {
    const data = this.kernel.plugin(dataRef);
    const views = new Map<string, Awaited<ReturnType<typeof data.tableView>>>();
    const viewOf = async (ref: string) => {
      if (!views.has(ref)) views.set(ref, await data.tableView(principal, connectionId, ref));
      return views.get(ref) ?? null;
    };
    const pagesApi = this.kernel.plugin(pagesRef);
    const viewNames = new Set<string>();
    const out: DiffChange[] = [];
    const rowChanges = new Map<number, RowChange>();
    const pending: Array<{ index: number; change: RowChange }> = [];
    for (const [index, c] of changes.entries()) {
      if (c.op === 'create-view') {
        const proposal = { pageId: c.pageId, name: c.name, query: c.query };
        const problems = (await pagesApi.checkView(principal, proposal)).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
        const page = await pagesApi.findVisible(principal, c.pageId);
        if (page && page.connectionId !== connectionId) problems.push("The page shows another connection's table.");
        else if (page?.table && !runTables.includes(page.table)) problems.push(`The page's table "${page.table}" is not one of this run's tables.`);
        const name = `${c.pageId}\u0000${c.name.trim().toLowerCase()}`;
        if (viewNames.has(name)) problems.push('name: This change set already makes a view of this name on the page.');
        viewNames.add(name);
        out.push({ index, op: c.op, table: page?.table ?? null, after: { ...proposal }, valid: problems.length === 0, problems });
        continue;
      }
      if (c.op === 'create-page') {
        const problems: string[] = [];
        if (!principal.permissions.has(PAGES_WRITE)) problems.push('You may not create pages (pages.write).');
        if (c.table !== undefined && !runTables.includes(c.table)) problems.push(`The table "${c.table}" is not one of this run's tables.`);
        if (c.table !== undefined && !(await viewOf(c.table))) problems.push(`No table "${c.table}" you may read.`);
        if (c.kind !== 'dashboard' && c.table === undefined) problems.push('A list, detail or form page needs a table.');
        out.push({
          index,
          op: c.op,
          table: c.table ?? null,
          after: { title: c.title, kind: c.kind, slug: c.slug ?? null },
          valid: problems.length === 0,
          problems,
        });
        continue;
      }
      const problems: string[] = [];
      if (!runTables.includes(c.table)) problems.push(`The table "${c.table}" is not one of this run's tables.`);
      const view = await viewOf(c.table);
      let recordId: string | undefined;
      if (view && c.op !== 'insert') {
        const k = this.recordIdOf(view.table, c.key);
        if (k.problem) problems.push(k.problem);
        recordId = k.recordId;
      }
      if (view && c.op !== 'delete') {
        for (const name of Object.keys(c.values)) {
          const col = view.table.columns.find((x) => x.name === name);
          if (col?.display.secret) problems.push(`${name}: A secret column: the assistant never writes secret columns.`);
        }
      }
      const change: RowChange = {
        table: c.table,
        op: c.op === 'insert' ? 'create' : c.op,
        ...(recordId !== undefined ? { recordId } : {}),
        ...(c.op !== 'delete' ? { values: c.values } : {}),
      };
      out.push({ index, op: c.op, table: c.table, ...(recordId !== undefined ? { key: recordId } : {}), valid: false, problems });
      pending.push({ index, change });
    }
    if (pending.length) {
      const checks = await data.checkChanges(
        principal,
        connectionId,
        pending.map((p) => p.change),
      );
      for (const [i, p] of pending.entries()) {
        const check = checks[i]!;
        const entry = out[p.index]!;
        entry.problems.push(...check.problems.filter((x) => !entry.problems.includes(x)));
        if (p.change.op !== 'create') entry.before = check.before;
        if (p.change.op === 'create') entry.after = { ...p.change.values };
        else if (p.change.op === 'update') entry.after = { ...(check.before ?? {}), ...p.change.values };
        else entry.after = null;
        entry.valid = entry.problems.length === 0;
        if (entry.valid) rowChanges.set(p.index, p.change);
      }
    }
    for (const e of out) e.valid = e.problems.length === 0;
    const summary: Summary = { insert: 0, update: 0, delete: 0, views: 0, pages: 0, invalid: 0 };
    for (const e of out) {
      if (!e.valid) summary.invalid++;
      else if (e.op === 'insert') summary.insert++;
      else if (e.op === 'update') summary.update++;
      else if (e.op === 'delete') summary.delete++;
      else if (e.op === 'create-page') summary.pages++;
      else summary.views++;
    }
    const hash = createHash('sha256').update(JSON.stringify(out)).digest('base64url');
    return { diff: { hash, changes: out, summary }, changes, rowChanges };
  }

  /**
   * POST …/apply: the diff computed again must be the one shown (its hash); every valid row change
   * written in one transaction through the data plugin; pages made after it commits.
   */
  async apply(
    principal: Principal,
    row: RunRow,
    input: { diffHash: string; skipInvalid?: boolean | undefined },
  ): Promise<{ run: Run; undoToken: string; applied: Omit<Summary, 'invalid'> & { skipped: number }; audit: unknown; made: Made }> {
    if (row.state !== 'parsed') throw wrongState(row.state, ['parsed']);
    const { diff, changes, rowChanges } = await this.diff(principal, row);
    const tablesWritten = new Set([...changes].flatMap((c) => (c.op === 'insert' || c.op === 'update' || c.op === 'delete' ? [c.table] : [])));
    for (const t of tablesWritten) {
      if (!principal.permissions.grantOn(DATA_WRITE, row.connection_id, t)) throw new AppError('FORBIDDEN', { params: { permission: DATA_WRITE, table: t } });
    }
    if (!constantTimeEqual(diff.hash, input.diffHash)) throw new AppError('LLM_DIFF_CHANGED', { params: { hash: diff.hash } });
    const invalid = diff.changes.filter((c) => !c.valid);
    if (invalid.length && !input.skipInvalid) {
      throw new AppError('LLM_CHANGES_INVALID', {
        params: { changes: invalid.map((c) => ({ index: c.index, problems: c.problems })) },
      });
    }
    // Claimed first: a second apply of the same run (another tab, another replica) finds it taken.
    if (!(await this.update(row.id, { state: 'applied' }, ['parsed']))) throw wrongState((await this.reload(row.id)).state, ['parsed']);
    let undoToken: string;
    let undoExpiresAt: number;
    let dataAudit: unknown[] = [];
    const ordered = [...rowChanges.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c);
    try {
      const res = await this.kernel.plugin(dataRef).applyChanges(principal, row.connection_id, ordered, { undoTtlMs: UNDO_TTL_MS });
      undoToken = res.undoToken;
      undoExpiresAt = res.undoExpiresAt;
      dataAudit = res.audit;
    } catch (err) {
      await this.update(row.id, { state: 'parsed' }, ['applied']);
      throw err;
    }
    const made = await this.makePages(principal, row, diff, changes);
    const pages = made.pages.length;
    const views = made.views.length;
    const applied = { insert: diff.summary.insert, update: diff.summary.update, delete: diff.summary.delete, views, pages, skipped: invalid.length };
    const actor = actorOf(principal);
    await this.update(row.id, {
      summary: JSON.stringify({ insert: applied.insert, update: applied.update, delete: applied.delete, views, pages, invalid: invalid.length }),
      undo_hash: hashToken(undoToken),
      undo_token: this.undoBox.encrypt(undoToken),
      made: JSON.stringify(made),
      applied_by_type: actor.type,
      applied_by_id: actor.id,
      applied_at: this.kernel.now(),
      undo_expires_at: undoExpiresAt,
    });
    return { run: this.toRun(await this.reload(row.id)), undoToken, applied, audit: dataAudit, made: madeView(made) };
  }

  /**
   * After the rows committed: the set's pages, then its views, through PagesProvides with the
   * caller's rights. One that fails now (a name taken since) is logged and left out of the counts.
   */
  private async makePages(principal: Principal, row: RunRow, diff: Diff, changes: Change[]): Promise<MadeStored> {
    const pagesApi = this.kernel.plugin(pagesRef);
    const made: MadeStored = { pages: [], views: [] };
    const failed = (err: unknown) =>
      this.kernel.log.warn({ err: { message: (err as Error).message }, run: row.id }, 'llm: a page or view of an applied run was not made');
    for (const e of diff.changes) {
      if (!e.valid || e.op !== 'create-page') continue;
      const c = changes[e.index] as Extract<Change, { op: 'create-page' }>;
      try {
        const page = await pagesApi.create({
          slug: await pagesApi.freeSlug(slugify(c.slug ?? c.title) || 'page'),
          title: c.title,
          kind: c.kind,
          connectionId: row.connection_id,
          table: c.table ?? null,
          createdBy: principal.userId,
        });
        made.pages.push({ pageId: page.id, updatedAt: page.updatedAt, slug: page.slug, title: page.title });
      } catch (err) {
        failed(err);
      }
    }
    for (const e of diff.changes) {
      if (!e.valid || e.op !== 'create-view') continue;
      const c = changes[e.index] as Extract<Change, { op: 'create-view' }>;
      try {
        const view = await pagesApi.createView(principal, { pageId: c.pageId, name: c.name, query: c.query });
        made.views.push({ pageId: view.pageId, viewId: view.id, updatedAt: view.updatedAt, name: view.name });
      } catch (err) {
        failed(err);
      }
    }
    return made;
  }

  /**
   * POST …/undo/{token}: only the applier or llm.admin; 404 for a token not this run's or expired.
   * Every conflict is looked for first (the rows by the data plugin's dry run, the pages and views
   * made by their updatedAt), then one 409 CONFLICT lists them all and nothing is undone; else the
   * rows are reverted, then the views and pages made are deleted (decisions LL12).
   */
  async undo(principal: Principal, row: RunRow, token: string): Promise<{ run: Run; reverted: number; removed: { pages: number; views: number } }> {
    if (row.state !== 'applied' || row.undo_hash === null || !constantTimeEqual(row.undo_hash, hashToken(token))) {
      throw new AppError('NOT_FOUND', { message: 'No undo with this token for this run.' });
    }
    if (row.undo_expires_at !== null && Number(row.undo_expires_at) <= this.kernel.now())
      throw new AppError('NOT_FOUND', { message: 'This undo token has expired.' });
    if (!this.mayUndo(principal, row)) {
      throw new AppError('FORBIDDEN', {
        message: 'Only who applied the run (or an llm.admin) may undo it.',
        params: { permission: LLM_ADMIN, reason: 'not-applier' },
      });
    }
    const data = this.kernel.plugin(dataRef);
    const pagesApi = this.kernel.plugin(pagesRef);
    const made = json<MadeStored>(row.made, NOTHING_MADE);
    const ownViews = (pageId: string) => made.views.filter((v) => v.pageId === pageId).map((v) => v.viewId);
    const spent = (err: unknown): never => {
      if (err instanceof AppError && ['UNDO_EXPIRED', 'UNDO_ALREADY_USED', 'NOT_FOUND'].includes(err.code))
        throw new AppError('NOT_FOUND', { message: 'This undo token is spent or expired.' });
      throw err;
    };
    const blocking = (state: MadeState) => state === 'changed' || state === 'in-use';

    // Every conflict first.
    let rows: unknown[] = [];
    try {
      await data.undoChanges(principal, token, { anyAuthor: true, dryRun: true });
    } catch (err) {
      if (err instanceof AppError && err.code === 'CONFLICT' && Array.isArray(err.params?.['rows'])) rows = err.params['rows'];
      else spent(err);
    }
    const views: Array<{ pageId: string; viewId: string; name: string; reason: string }> = [];
    for (const v of made.views) {
      const state = await pagesApi.madeState(v);
      if (blocking(state)) views.push({ pageId: v.pageId, viewId: v.viewId, name: v.name, reason: `view-${state}` });
    }
    const pages: Array<{ pageId: string; title: string; reason: string }> = [];
    for (const p of made.pages) {
      const state = await pagesApi.madeState(p, ownViews(p.pageId));
      if (blocking(state)) pages.push({ pageId: p.pageId, title: p.title, reason: `page-${state}` });
    }
    if (rows.length || views.length || pages.length) {
      throw new AppError('CONFLICT', {
        message: 'What this run wrote or made was changed since, so undoing it would lose those changes; nothing was undone.',
        params: { reason: 'rows-changed', rows, pages, views },
      });
    }

    // Then act: the rows (all or none, in the data plugin's transaction), then views, then pages.
    let reverted = 0;
    try {
      reverted = (await data.undoChanges(principal, token, { anyAuthor: true })).results.length;
    } catch (err) {
      spent(err);
    }
    const removed = { pages: 0, views: 0 };
    for (const v of made.views) {
      const state = await pagesApi.removeMade(v);
      if (state === 'unchanged') removed.views++;
      else if (state !== 'gone') this.kernel.log.warn({ run: row.id, viewId: v.viewId, state }, 'llm: a view changed while its run was undone; kept');
    }
    for (const p of made.pages) {
      const state = await pagesApi.removeMade(p, ownViews(p.pageId));
      if (state === 'unchanged') removed.pages++;
      else if (state !== 'gone') this.kernel.log.warn({ run: row.id, pageId: p.pageId, state }, 'llm: a page changed while its run was undone; kept');
    }
    await this.update(row.id, { state: 'undone', undo_hash: null, undo_token: null }, ['applied']);
    return { run: this.toRun(await this.reload(row.id)), reverted, removed };
  }

  /**
   * Runs older than the retention go, prompt and answer with them (LL3); runs left unapplied
   * (prompted, answered, parsed, invalid, failed) untouched for 7 days are discarded (LL11).
   */
  async cleanup(): Promise<{ deleted: number; discarded: number }> {
    const { retentionDays } = await this.config.limits();
    const now = this.kernel.now();
    const res = await this.db
      .deleteFrom('llm_runs')
      .where('created_at', '<', now - retentionDays * DAY_MS)
      .executeTakeFirst();
    const stale = await this.db
      .updateTable('llm_runs')
      .set({ state: 'discarded', updated_at: now })
      .where('state', 'in', DISCARDABLE)
      .where('updated_at', '<', now - DISCARD_AFTER_MS)
      .executeTakeFirst();
    return { deleted: Number(res.numDeletedRows), discarded: Number(stale.numUpdatedRows) };
  }

  /** At most hourly per process, after a run is made (besides the daily job). */
  private async cleanupSoon(now: number): Promise<void> {
    if (now - this.lastCleanup < 3600_000) return;
    this.lastCleanup = now;
    try {
      await this.cleanup();
    } catch (err) {
      this.kernel.log.warn({ err: { message: (err as Error).message } }, 'llm: cleanup failed');
    }
  }
}

/** What a run made, as its readers see it (no updatedAt). */
function madeView(made: MadeStored): Made {
  return {
    pages: made.pages.map((p) => ({ pageId: p.pageId, slug: p.slug, title: p.title })),
    views: made.views.map((v) => ({ pageId: v.pageId, viewId: v.viewId, name: v.name })),
  };
}

export const llmServiceRef = defineServiceRef<LlmService>('llm');
