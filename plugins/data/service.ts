import { defineServiceRef, actorOf, AppError, type AuditEntryInput, type ColumnGrant, type Kernel, type Principal } from '../../kernel/api.js';
import {
  countRows,
  PlannerEstimates,
  listRows,
  cancellable,
  parseListParams,
  parseRecordId,
  readRow,
  recordIdOf,
  RowInputError,
  rowDialect,
  toWireRow,
  whereSql,
  type RowDialect,
} from '../../engine/rows/index.js';
import { connectionsRef } from '../connections/provides.js';
import { schemaRef, type EffectiveSchema, type EffectiveTable } from '../schema/provides.js';
import { DATA_READ, DATA_WRITE, tableView, type TableView } from './access.js';
import type { AppliedChanges, AppliedRow, DataProvides, ReadView, RowChange, RowChangeCheck } from './provides.js';
import { changeDiff, DATA_CHANGED, type DataChanged } from './effects.js';
import { fromDatabase, fromRead, rowNotFound, tableNotFound, validation } from './errors.js';
import { countReferences, inboundKeys, type InboundReference } from './references.js';
import { dataDb } from './tables.js';
import { UndoStore, type UndoStep } from './undo-store.js';
import { RowWriter, type OpInput, type OpResult } from './writer.js';

export type WriteKind = 'create' | 'update' | 'delete' | 'bulk';

interface Target {
  schema: EffectiveSchema;
  table: EffectiveTable;
  view: TableView;
}

interface Grants {
  read: Readonly<ColumnGrant> | null;
  write: Readonly<ColumnGrant> | null;
}

/** Ends a dry run's transaction (rolled back) with what the revert would have done. */
class DryRunDone extends Error {
  constructor(readonly results: AppliedRow[]) {
    super('dry run');
  }
}

/**
 * What the caller may do with the table. A table no read scope reaches answers 404 like a
 * missing one, so grants never reveal which tables exist; one the caller reads but may not write
 * answers 403.
 */
function grantsFor(principal: Principal, connectionId: string, ref: string, mode: 'read' | 'write'): Grants {
  const read = principal.permissions.grantOn(DATA_READ, connectionId, ref);
  const write = mode === 'write' ? principal.permissions.grantOn(DATA_WRITE, connectionId, ref) : null;
  if (!read && !write) throw tableNotFound();
  if (mode === 'read' && !read) throw tableNotFound();
  if (mode === 'write' && !write) throw new AppError('FORBIDDEN', { params: { permission: DATA_WRITE } });
  return { read, write };
}

/** The table in this schema as the grants show it; a write also needs a table with a primary key. */
function targetIn(schema: EffectiveSchema, ref: string, mode: 'read' | 'write', { read, write }: Grants): Target {
  const table = schema.model.tables.find((t) => t.ref === ref);
  if (!table) throw tableNotFound();
  if (mode === 'write') {
    if (table.kind !== 'table') throw new AppError('TABLE_READ_ONLY', { params: { reason: 'view' } });
    if (!table.primaryKey) throw new AppError('TABLE_READ_ONLY', { params: { reason: 'no-primary-key' } });
  }
  return { schema, table, view: tableView(table, read, write) };
}

/** DataProvides' view of `ref` in `schema` for a read grant; null when the schema has no such table. */
function readViewIn(schema: EffectiveSchema, ref: string, read: Readonly<ColumnGrant>): ReadView | null {
  const table = schema.model.tables.find((t) => t.ref === ref);
  if (!table) return null;
  const view = tableView(table, read, null);
  return { table, readable: view.readable, readableNames: view.readableNames, wholeTable: read.all };
}

export interface ListAnswer {
  rows: Record<string, unknown>[];
  recordIds: Array<string | null>;
  nextCursor: string | null;
  total: number | null;
  totalExact: boolean;
}

export interface WriteAnswer {
  results: OpResult[];
  undoToken: string;
}

/** Runs `fn`, turning the row code's refusals into the API's 400. */
function guarded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof RowInputError ? validation(err) : err;
  }
}

/** Runs a read against the source, in the API's words when it fails for a reason of ours. */
async function reading<T>(d: RowDialect, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw fromRead(d, err);
  }
}

/** Rows of the operators' tables for the /data routes: access, reads, writes, undo. */
export class DataService implements DataProvides {
  readonly undo: UndoStore;
  /** The planner's figures for `total` on large tables, so a page is one round trip. */
  private readonly estimates = new PlannerEstimates();

  constructor(private readonly kernel: Kernel) {
    this.undo = new UndoStore(dataDb(kernel.db), kernel.secrets('data.undo'), () => kernel.now());
    // Undo tokens hold sealed row values of that database; with it gone they can only leak.
    this.connections.onRemove(async (id, trx) => {
      const res = await dataDb(trx).deleteFrom('data_undo').where('connection_id', '=', id).executeTakeFirst();
      return { undoEntries: Number(res.numDeletedRows) };
    });
  }

  private get connections() {
    return this.kernel.plugin(connectionsRef);
  }

  private get schemas() {
    return this.kernel.plugin(schemaRef);
  }

  /** The table and what the caller may do with it (grantsFor); a write also needs a connection that is not read-only. */
  private async target(principal: Principal, connectionId: string, ref: string, mode: 'read' | 'write'): Promise<Target> {
    const grants = grantsFor(principal, connectionId, ref, mode);
    const target = targetIn(await this.schemas.effective(connectionId), ref, mode, grants);
    if (mode === 'write' && (await this.connections.info(connectionId)).readOnly) throw new AppError('CONNECTION_READ_ONLY');
    return target;
  }

  /** DataProvides.tableView: the columns the caller reads, null when the table is not there for it. */
  async tableView(principal: Principal, connectionId: string, ref: string): Promise<ReadView | null> {
    const read = principal.permissions.grantOn(DATA_READ, connectionId, ref);
    if (!read) return null;
    return readViewIn(this.schemas.effectiveNow(connectionId) ?? (await this.schemas.effective(connectionId)), ref, read);
  }

  tableViewNow(principal: Principal, connectionId: string, ref: string): ReadView | null | undefined {
    const read = principal.permissions.grantOn(DATA_READ, connectionId, ref);
    if (!read) return null;
    const schema = this.schemas.effectiveNow(connectionId);
    return schema ? readViewIn(schema, ref, read) : undefined;
  }

  /**
   * One page of a table's rows and their count. `signal` is the caller going away (the client
   * closed its request): a search, which may scan a whole big table, is then cancelled in the
   * database (engine/rows/cancel.ts, decisions DA14); other pages run to their end (they are short).
   */
  async list(principal: Principal, connectionId: string, ref: string, query: Record<string, unknown>, signal?: AbortSignal): Promise<ListAnswer> {
    const grants = grantsFor(principal, connectionId, ref, 'read');
    // Every list asks: the effective schema without an async step when it is kept.
    const { table, view } = targetIn(this.schemas.effectiveNow(connectionId) ?? (await this.schemas.effective(connectionId)), ref, 'read', grants);
    const params = guarded(() => parseListParams(query, { table, readable: view.readableNames }));
    // One async step per await, not a wrapper each: every list pays for each promise. `return
    // await`: an async function that returns a promise settles two steps after it, not one.
    return await this.connections.withSource(connectionId, async (db, info) => {
      const d = rowDialect(info.dialect);
      const read = async (on: typeof db): Promise<ListAnswer> => {
        const page = await listRows(on, d, table, params, {
          output: params.fields ?? view.readable,
          searchable: view.readable,
          cursors: this.kernel.signer('data.cursor'),
        });
        const count = await countRows(on, d, table, whereSql(d, params.filters, params.search, view.readable), {
          estimates: { cache: this.estimates, scope: connectionId },
        });
        return { rows: page.rows, recordIds: page.recordIds, nextCursor: page.nextCursor, total: count.total, totalExact: count.exact };
      };
      try {
        return params.search === null ? await read(db) : await cancellable(db, d, signal, read);
      } catch (err) {
        throw fromRead(d, err);
      }
    });
  }

  async get(principal: Principal, connectionId: string, ref: string, recordId: string): Promise<{ row: Record<string, unknown>; recordId: string }> {
    const { table, view } = await this.target(principal, connectionId, ref, 'read');
    const key = guarded(() => parseRecordId(table, recordId, 'params.recordId'));
    return this.connections.withSource(connectionId, async (db, info) => {
      const d = rowDialect(info.dialect);
      const raw = await reading(d, () => readRow(db, d, table, key, view.readable));
      if (!raw) throw rowNotFound();
      const row = toWireRow(d, view.readable, raw);
      return { row, recordId: recordIdOf(table, row)! };
    });
  }

  async references(principal: Principal, connectionId: string, ref: string, recordId: string): Promise<InboundReference[]> {
    const { schema, table } = await this.target(principal, connectionId, ref, 'read');
    const key = guarded(() => parseRecordId(table, recordId, 'params.recordId'));
    // Only keys the caller could follow: a table it reads, through columns it reads.
    const keys = inboundKeys(schema.model.tables, table).filter(({ from, fk }) => {
      const grant = principal.permissions.grantOn(DATA_READ, connectionId, from.ref);
      if (!grant) return false;
      const view = tableView(from, grant, null);
      return fk.columns.every((c) => view.readableNames.has(c));
    });
    const needed = [...new Set(keys.flatMap(({ fk }) => fk.referencedColumns))]
      .map((n) => table.columns.find((c) => c.name === n))
      .filter((c): c is (typeof table.columns)[number] => !!c);
    return this.connections.withSource(connectionId, async (db, info) => {
      const d = rowDialect(info.dialect);
      return reading(d, async () => {
        const raw = await readRow(db, d, table, key, needed.length ? needed : table.columns.slice(0, 1));
        if (!raw) throw rowNotFound();
        return countReferences(db, d, keys, new Map(needed.map((c, i) => [c.name, raw[i]])));
      });
    });
  }

  /** Creates, updates and deletes in one transaction; all of them or none. */
  async write(
    principal: Principal,
    connectionId: string,
    ref: string,
    kind: WriteKind,
    ops: OpInput[],
    audit: (e: AuditEntryInput) => void,
  ): Promise<WriteAnswer> {
    const { table, view } = await this.target(principal, connectionId, ref, 'write');
    const bulk = kind === 'bulk';
    const actor = actorOf(principal);
    const answer = await this.connections.withSource(connectionId, async (db, info) => {
      const d = rowDialect(info.dialect);
      const writer = new RowWriter(d, table, view, { rowWrites: this.kernel.rowWrites, connectionId });
      return db.transaction().execute(async (trx) => {
        const results: OpResult[] = [];
        const steps: UndoStep[] = [];
        for (const [i, op] of ops.entries()) {
          const path = bulk ? `body.operations.${i}` : 'body';
          try {
            const done = await writer.apply(trx, op, path, bulk ? `${path}.recordId` : 'params.recordId', bulk ? i : undefined);
            results.push(done.result);
            steps.push(done.step);
          } catch (err) {
            throw fromDatabase(d, err, bulk ? i : undefined);
          }
        }
        // Inside the transaction: a write whose undo could not be stored is not kept.
        const undoToken = await this.undo.create(actor, connectionId, kind, steps);
        return { results, undoToken, steps };
      });
    });
    audit({
      action: `data.${kind}`,
      target: { type: 'data.table', id: `${connectionId}/${ref}`.slice(0, 200) },
      diff: changeDiff(connectionId, table, answer.steps),
    });
    await this.publish({ connectionId, table: ref, recordIds: answer.results.map((r) => r.recordId), op: kind });
    for (const s of answer.steps) {
      const row = s.after ?? s.before;
      if (row) this.kernel.rowWrites.after({ connectionId, table: table.name, op: s.op === 'create' ? 'insert' : s.op, row });
    }
    return { results: answer.results, undoToken: answer.undoToken };
  }

  /** DataProvides.checkChanges: a dry run with the caller's grants; nothing is written. */
  async checkChanges(principal: Principal, connectionId: string, changes: readonly RowChange[]): Promise<RowChangeCheck[]> {
    const schema = await this.schemas.effective(connectionId);
    const readOnly = (await this.connections.info(connectionId)).readOnly;
    const targets = new Map<string, Target | string>();
    const targetOf = (ref: string): Target | string => {
      let t = targets.get(ref);
      if (t === undefined) {
        try {
          t = targetIn(schema, ref, 'write', grantsFor(principal, connectionId, ref, 'write'));
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          t =
            err.code === 'NOT_FOUND'
              ? `No table "${ref}" you may read on this connection.`
              : err.code === 'FORBIDDEN'
                ? `You may not write the table "${ref}".`
                : `Rows of "${ref}" cannot be written (a view or a table without a primary key).`;
        }
        targets.set(ref, t);
      }
      return t;
    };
    return this.connections.withSource(connectionId, async (db, info) => {
      const d = rowDialect(info.dialect);
      const writers = new Map<string, RowWriter>();
      const out: RowChangeCheck[] = [];
      for (const change of changes) {
        const target = targetOf(change.table);
        if (typeof target === 'string') {
          out.push({ before: null, problems: [target] });
          continue;
        }
        let writer = writers.get(change.table);
        if (!writer) writers.set(change.table, (writer = new RowWriter(d, target.table, target.view)));
        const problems = readOnly ? ['The connection is read-only.'] : [];
        problems.push(...writer.check({ op: change.op, recordId: change.recordId, values: change.values }));
        let before: Record<string, unknown> | null = null;
        if (change.op !== 'create' && change.recordId !== undefined && !problems.some((p) => p.startsWith('key:'))) {
          const key = parseRecordId(target.table, change.recordId, 'key');
          const raw = await reading(d, () => readRow(db, d, target.table, key, target.view.readable));
          if (raw) before = toWireRow(d, target.view.readable, raw);
          else problems.push('No row with this key.');
        }
        out.push({ before, problems });
      }
      return out;
    });
  }

  /** DataProvides.applyChanges: row changes on several tables of one connection, in one transaction, with one undo token. */
  async applyChanges(principal: Principal, connectionId: string, changes: readonly RowChange[], opts: { undoTtlMs: number }): Promise<AppliedChanges> {
    const targets = new Map<string, Target>();
    for (const c of changes) if (!targets.has(c.table)) targets.set(c.table, await this.target(principal, connectionId, c.table, 'write'));
    const actor = actorOf(principal);
    const answer = await this.connections.withSource(connectionId, async (db, info) => {
      const d = rowDialect(info.dialect);
      const writers = new Map([...targets].map(([ref, t]) => [ref, new RowWriter(d, t.table, t.view, { rowWrites: this.kernel.rowWrites, connectionId })]));
      return db.transaction().execute(async (trx) => {
        const results: AppliedRow[] = [];
        const steps: UndoStep[] = [];
        for (const [i, c] of changes.entries()) {
          const path = `changes.${i}`;
          try {
            const done = await writers.get(c.table)!.apply(trx, { op: c.op, recordId: c.recordId, values: c.values }, path, `${path}.key`, i);
            results.push({ table: c.table, op: c.op, recordId: done.result.recordId });
            steps.push(done.step);
          } catch (err) {
            throw fromDatabase(d, err, i);
          }
        }
        const undoToken = await this.undo.create(actor, connectionId, 'changes', steps, opts.undoTtlMs);
        return { results, undoToken, steps };
      });
    });
    const audit = [...targets].map(([ref, t]) =>
      changeDiff(
        connectionId,
        t.table,
        answer.steps.filter((s) => s.table === ref),
      ),
    );
    await this.afterChanges(connectionId, targets, answer.steps, answer.results, 'bulk');
    return { undoToken: answer.undoToken, undoExpiresAt: this.kernel.now() + opts.undoTtlMs, results: answer.results, audit };
  }

  /** DataProvides.undoChanges: every row of the token reverted, or 409 CONFLICT naming those changed since and nothing reverted. */
  async undoChanges(
    principal: Principal,
    token: string,
    opts: { anyAuthor: boolean; dryRun?: boolean },
  ): Promise<{ connectionId: string; results: AppliedRow[] }> {
    const actor = actorOf(principal);
    const record = await this.undo.open(token, actor, principal.permissions.all || opts.anyAuthor);
    if (opts.dryRun) {
      // The revert run in a transaction that is always rolled back: the same checks, nothing kept.
      try {
        await this.revertSteps(principal, actor, record.connectionId, record.steps, true);
      } catch (err) {
        if (err instanceof DryRunDone) return { connectionId: record.connectionId, results: err.results };
        throw err;
      }
    }
    const done = await this.revertSteps(principal, actor, record.connectionId, record.steps);
    await this.markUsed(record.id);
    return { connectionId: record.connectionId, results: done.results };
  }

  /** Reverts steps of any tables; every conflict collected, then one 409 listing them (nothing reverted). `dryRun`: rolled back, DryRunDone thrown. */
  private async revertSteps(principal: Principal, actor: ReturnType<typeof actorOf>, connectionId: string, steps: readonly UndoStep[], dryRun = false) {
    const targets = new Map<string, Target>();
    for (const s of steps) if (!targets.has(s.table)) targets.set(s.table, await this.target(principal, connectionId, s.table, 'write'));
    const answer = await this.connections.withSource(connectionId, async (db, info) => {
      const d: RowDialect = rowDialect(info.dialect);
      const writers = new Map([...targets].map(([ref, t]) => [ref, new RowWriter(d, t.table, t.view)]));
      return db.transaction().execute(async (trx) => {
        const results: AppliedRow[] = [];
        const reverted: UndoStep[] = [];
        const conflicts: Array<Record<string, unknown>> = [];
        for (const step of [...steps].reverse()) {
          try {
            const done = await writers.get(step.table)!.revert(trx, step);
            results.push({ table: step.table, op: done.result.op, recordId: done.result.recordId });
            reverted.push(done.step);
          } catch (err) {
            if (err instanceof AppError && err.code === 'CONFLICT' && err.params?.['table'] !== undefined) {
              const row = { table: err.params['table'], recordId: err.params['recordId'], reason: err.params['reason'] };
              if (!conflicts.some((c) => c['table'] === row.table && c['recordId'] === row.recordId)) conflicts.push(row);
              continue;
            }
            throw fromDatabase(d, err);
          }
        }
        if (conflicts.length) {
          throw new AppError('CONFLICT', {
            message: 'Rows changed after this write, so undoing it would lose those changes; nothing was undone.',
            params: { reason: 'rows-changed', rows: conflicts },
          });
        }
        if (dryRun) throw new DryRunDone(results);
        const undoToken = await this.undo.create(actor, connectionId, 'undo', reverted);
        return { results, undoToken, steps: reverted };
      });
    });
    await this.afterChanges(connectionId, targets, answer.steps, answer.results, 'undo', false);
    return answer;
  }

  /** After a committed write of several tables: one event per table, then the add-ons' afterWrite. */
  private async afterChanges(
    connectionId: string,
    targets: ReadonlyMap<string, Target>,
    steps: readonly UndoStep[],
    results: readonly AppliedRow[],
    op: 'bulk' | 'undo',
    hooks = true,
  ): Promise<void> {
    for (const ref of targets.keys()) {
      await this.publish({ connectionId, table: ref, recordIds: results.filter((r) => r.table === ref).map((r) => r.recordId), op });
    }
    if (!hooks) return;
    for (const s of steps) {
      const row = s.after ?? s.before;
      const t = targets.get(s.table);
      if (row && t) this.kernel.rowWrites.after({ connectionId, table: t.table.name, op: s.op === 'create' ? 'insert' : s.op, row });
    }
  }

  /**
   * Reverts a write (or an undo) if its rows still hold what it left; answers a token that
   * undoes the undo. The token is marked used only after the revert committed on the source
   * (DA12): a process killed in between leaves the token usable and the rows as they were, and
   * the revert's own check (the rows still hold what the write left) makes a second
   * application a 409 CONFLICT rather than a second change.
   */
  async undoWrite(principal: Principal, token: string, audit: (e: AuditEntryInput) => void): Promise<WriteAnswer & { connectionId: string; table: string }> {
    const actor = actorOf(principal);
    const record = await this.undo.open(token, actor, principal.permissions.all);
    const ref = record.steps[0]?.table ?? '';
    if (record.steps.some((s) => s.table !== ref)) {
      // A change set of several tables (applyChanges): reverted whole, conflicts listed.
      const done = await this.revertSteps(principal, actor, record.connectionId, record.steps);
      await this.markUsed(record.id);
      audit({
        action: 'data.undo',
        target: { type: 'data.table', id: `${record.connectionId}/${ref}`.slice(0, 200) },
        diff: { tables: [...new Set(record.steps.map((s) => s.table))] },
      });
      return {
        results: done.results.map((r) => ({ op: r.op, recordId: r.recordId, row: null })),
        undoToken: done.undoToken,
        connectionId: record.connectionId,
        table: ref,
      };
    }
    const { table, view } = await this.target(principal, record.connectionId, ref, 'write');
    const answer = await this.connections.withSource(record.connectionId, async (db, info) => {
      const d: RowDialect = rowDialect(info.dialect);
      const writer = new RowWriter(d, table, view);
      return db.transaction().execute(async (trx) => {
        const results: OpResult[] = [];
        const steps: UndoStep[] = [];
        for (const step of [...record.steps].reverse()) {
          try {
            const done = await writer.revert(trx, step);
            results.push(done.result);
            steps.push(done.step);
          } catch (err) {
            throw fromDatabase(d, err);
          }
        }
        const undoToken = await this.undo.create(actor, record.connectionId, 'undo', steps);
        return { results, undoToken, steps };
      });
    });
    await this.markUsed(record.id);
    audit({
      action: 'data.undo',
      target: { type: 'data.table', id: `${record.connectionId}/${ref}`.slice(0, 200) },
      diff: changeDiff(record.connectionId, table, answer.steps),
    });
    await this.publish({ connectionId: record.connectionId, table: ref, recordIds: answer.results.map((r) => r.recordId), op: 'undo' });
    return { results: answer.results, undoToken: answer.undoToken, connectionId: record.connectionId, table: ref };
  }

  /**
   * The revert has committed: a mark that fails (meta store gone) or finds the token already
   * marked must not turn it into an error; a later use of the token meets rows that no longer
   * hold what the write left, and answers 409 CONFLICT.
   */
  private async markUsed(id: string): Promise<void> {
    try {
      if (!(await this.undo.markUsed(id))) this.kernel.log.warn({ undo: id }, 'undo token was marked by another attempt');
    } catch (err) {
      this.kernel.log.warn({ err: { message: (err as Error).message }, undo: id }, 'undo token not marked used');
    }
  }

  /** A failed publish must not turn a committed write into an error. */
  private async publish(event: DataChanged): Promise<void> {
    try {
      await this.kernel.events.publish(
        DATA_CHANGED,
        { ...event, recordIds: [...new Set(event.recordIds)] },
        { grant: { permission: DATA_READ, connectionId: event.connectionId, table: event.table } },
      );
    } catch (err) {
      this.kernel.log.warn({ err: { message: (err as Error).message } }, 'data.changed not published');
    }
  }
}

/** The whole service, for this plugin's own routes and jobs (other plugins get provides.ts, if anything). */
export const dataServiceRef = defineServiceRef<DataService>('data');
