import { sql, type Kysely } from 'kysely';
import { AppError } from '../../../kernel/errors.js';
import { ddlDialect } from './dialects/index.js';
import './errors.js';
import { primaryKeyName } from './names.js';
import { dialectRefusals } from './plan.js';
import type { AppliedStep, ApplyOptions, ApplyResult, DdlColumn, DdlDialect, DdlDialectName, DdlPlan, ServerInfo, TablePlan, UndoStep } from './types.js';

interface Step {
  info: AppliedStep;
  run(db: Kysely<any>): Promise<void>;
  /** Compensation; null for destructive steps and for indexes of a created table (dropping the table drops them). */
  undo: UndoStep | null;
  /** Drops or retypes data: nothing can undo it. */
  destructive?: true;
}

/** The failure a test hook (`failAfter`) stands in for. */
export class InjectedDdlFailure extends Error {
  override name = 'InjectedDdlFailure';
}

/**
 * Runs a plan of planTables on the connection with kysely's schema builder (identifiers quoted,
 * literals escaped by kysely). Additive steps run first, in plan order, then the destructive
 * ones (only with `allowDestructive`).
 *
 * A failure half-way leaves the connection as it was: PostgreSQL and SQLite run everything in
 * one transaction (unless `db` already is one: then the caller's rollback undoes it), MySQL (DDL
 * commits itself) undoes what was done by compensation — except destructive steps, which run
 * last and which nothing undoes (`params.irreversible` lists those that ran). The error is 502
 * DDL_FAILED with `params.step` (the step that failed) and `params.undone` (`rollback`,
 * `caller-transaction`, `compensation`, `partly`); the cause is the database's error. Never pass
 * a MySQL transaction: its DDL commits it.
 *
 * On success the result's `undo` is the compensation for the additive steps, for undoTables when
 * what follows (the meta store's transaction) fails.
 */
export async function applyTables(db: Kysely<any>, dialectName: DdlDialectName, plan: DdlPlan, options: ApplyOptions = {}): Promise<ApplyResult> {
  const dialect = ddlDialect(dialectName);
  refuseUnlessApplicable(plan, dialect, options);
  const server = await serverInfo(db, dialectName);
  const steps = buildSteps(plan, dialect, server);

  const done: Step[] = [];
  const runAll = async (conn: Kysely<any>) => {
    for (const [i, step] of steps.entries()) {
      if (options.failAfter !== undefined && i >= options.failAfter)
        throw new InjectedDdlFailure(`injected failure before step ${i + 1} (${step.info.kind} ${step.info.table})`);
      await options.onStep?.(step.info, i);
      await step.run(conn);
      done.push(step);
    }
  };

  const inTransaction = dialect.transactional && options.transaction !== false;
  try {
    if (inTransaction && !db.isTransaction) await db.transaction().execute(runAll);
    else await runAll(db);
  } catch (err) {
    const failed = steps[done.length]?.info ?? null;
    if (inTransaction) {
      throw new AppError('DDL_FAILED', { params: { step: failed, undone: db.isTransaction ? 'caller-transaction' : 'rollback' }, cause: err });
    }
    const undo = done.map((s) => s.undo).filter((u): u is UndoStep => u !== null);
    // Destructive steps run last: when one already ran, the connection cannot be as it was.
    const irreversible = done.filter((s) => s.destructive).map((s) => s.info);
    try {
      await undoTables(db, dialectName, undo);
    } catch (undoErr) {
      throw new AppError('DDL_FAILED', {
        message: "The connection's database refused a table change, and undoing what had been done failed too: check the connection's tables.",
        params: { step: failed, undone: 'partly', irreversible, undoFailure: undoErr instanceof AppError ? undoErr.params : String(undoErr) },
        cause: err,
      });
    }
    throw new AppError('DDL_FAILED', { params: { step: failed, undone: irreversible.length > 0 ? 'partly' : 'compensation', irreversible }, cause: err });
  }
  return { steps: done.map((s) => s.info), undo: done.map((s) => s.undo).filter((u): u is UndoStep => u !== null) };
}

/**
 * Compensating DDL in reverse order: drops the indexes, columns and tables applyTables added.
 * Idempotent where the dialect allows (`if exists`), so it can be retried; every step is tried,
 * and a failure of any is reported after the others ran (502 DDL_FAILED, `params.failed`).
 */
export async function undoTables(db: Kysely<any>, dialectName: DdlDialectName, undo: readonly UndoStep[]): Promise<void> {
  const dialect = ddlDialect(dialectName);
  const failed: { step: UndoStep; error: string }[] = [];
  for (const step of [...undo].reverse()) {
    try {
      if (step.kind === 'dropTable') await db.schema.dropTable(step.table).ifExists().execute();
      else if (step.kind === 'dropIndex') await dialect.dropIndex(db, step.table, step.index);
      else await db.schema.alterTable(step.table).dropColumn(step.column).execute();
    } catch (err) {
      failed.push({ step, error: err instanceof Error ? err.message : String(err) });
    }
  }
  if (failed.length > 0) throw new AppError('DDL_FAILED', { message: 'Undoing table changes failed.', params: { failed } });
}

/** Uninstall with dropData: drops the tables (that exist), in one transaction where the dialect allows. */
export async function dropTables(db: Kysely<any>, dialectName: DdlDialectName, names: readonly string[]): Promise<void> {
  const dialect = ddlDialect(dialectName);
  const run = async (conn: Kysely<any>) => {
    for (const name of names) await conn.schema.dropTable(name).ifExists().execute();
  };
  try {
    if (dialect.transactional && !db.isTransaction) await db.transaction().execute(run);
    else await run(db);
  } catch (err) {
    throw new AppError('DDL_FAILED', { message: "The connection's database refused to drop the tables.", params: { tables: names }, cause: err });
  }
}

function refuseUnlessApplicable(plan: DdlPlan, dialect: DdlDialect, options: ApplyOptions): void {
  const reasons = [...plan.refusals];
  for (const c of plan.conflicts) reasons.push(`Table ${c.table} already exists and is not this add-on's.`);
  if (plan.destructive && !options.allowDestructive) reasons.push('The plan drops or retypes existing data; allowDestructive was not given.');
  for (const r of dialectRefusals(plan, dialect.name)) if (!reasons.includes(r)) reasons.push(r);
  if (reasons.length > 0) throw new AppError('DDL_REFUSED', { params: { reasons } });
}

async function serverInfo(db: Kysely<any>, dialect: DdlDialectName): Promise<ServerInfo> {
  if (dialect !== 'mysql') return { dialect, mariadb: false, nativeUuid: false };
  const { rows } = await sql<{ v: string }>`select version() as v`.execute(db);
  const version = rows[0]?.v ?? '';
  const mariadb = /mariadb/i.test(version);
  const [major = 0, minor = 0] = version.split(/[.-]/).map(Number);
  return { dialect, mariadb, nativeUuid: mariadb && (major > 10 || (major === 10 && minor >= 7)) };
}

function buildSteps(plan: DdlPlan, dialect: DdlDialect, server: ServerInfo): Step[] {
  const additive: Step[] = [];
  const destructive: Step[] = [];
  for (const t of plan.tables) {
    if (t.action === 'create') additive.push(createTable(t, dialect, server));
    if (t.action === 'alter') {
      for (const c of t.columns) {
        if (c.action === 'add' && c.declaration) additive.push(addColumn(t.name, c.declaration, dialect, server));
        if (c.action === 'retype' && c.declaration) destructive.push(retypeColumn(t.name, c.declaration, dialect, server));
        if (c.action === 'drop') destructive.push(dropColumn(t.name, c.name));
      }
    }
    if (t.action === 'alter') {
      for (const i of t.indexes) {
        if (i.action === 'drop') {
          destructive.unshift({
            info: { kind: 'dropIndex', table: t.name, index: i.name },
            run: (db) => dialect.dropIndex(db, t.name, i.name),
            undo: null,
            destructive: true,
          });
        }
      }
    }
    if (t.action === 'create' || t.action === 'alter') {
      for (const i of t.indexes) {
        if (i.action !== 'add') continue;
        additive.push({
          info: { kind: 'addIndex', table: t.name, index: i.name },
          run: async (db) => {
            let b = db.schema.createIndex(i.name).on(t.name).columns(i.columns);
            if (i.unique) b = b.unique();
            await b.execute();
          },
          // Dropping a created table drops its indexes: only indexes on existing tables need their own undo.
          undo: t.action === 'create' ? null : { kind: 'dropIndex', table: t.name, index: i.name },
        });
      }
    }
    if (t.action === 'drop') {
      destructive.push({
        info: { kind: 'dropTable', table: t.name },
        run: async (db) => {
          await db.schema.dropTable(t.name).execute();
        },
        undo: null,
        destructive: true,
      });
    }
  }
  return [...additive, ...destructive];
}

function createTable(t: TablePlan, dialect: DdlDialect, server: ServerInfo): Step {
  const declarations = t.columns.map((c) => c.declaration).filter((c): c is DdlColumn => c !== undefined);
  const pkColumn = t.primaryKey.length === 1 ? declarations.find((c) => c.name === t.primaryKey[0]) : undefined;
  // An auto-numbered key must sit on its column (SQLite's rowid alias, MySQL's AUTO_INCREMENT key).
  const inline = pkColumn?.autoIncrement === true;
  return {
    info: { kind: 'createTable', table: t.name },
    run: async (db) => {
      let b = db.schema.createTable(t.name);
      for (const c of declarations) {
        b = b.addColumn(c.name, dialect.dataType(c, server), (cb) => dialect.modifiers(cb, c, { inlinePrimaryKey: inline && c === pkColumn, server }));
      }
      if (!inline) b = b.addPrimaryKeyConstraint(primaryKeyName(t.name), t.primaryKey as never[]);
      await b.execute();
    },
    undo: { kind: 'dropTable', table: t.name },
  };
}

function addColumn(table: string, c: DdlColumn, dialect: DdlDialect, server: ServerInfo): Step {
  return {
    info: { kind: 'addColumn', table, column: c.name },
    run: async (db) => {
      await db.schema
        .alterTable(table)
        .addColumn(c.name, dialect.dataType(c, server), (cb) => dialect.modifiers(cb, c, { inlinePrimaryKey: false, server }))
        .execute();
    },
    undo: { kind: 'dropColumn', table, column: c.name },
  };
}

function retypeColumn(table: string, c: DdlColumn, dialect: DdlDialect, server: ServerInfo): Step {
  const retype = dialect.retype;
  return {
    info: { kind: 'retypeColumn', table, column: c.name },
    run: async (db) => {
      if (!retype) throw new Error(`${dialect.name} cannot retype a column`);
      await retype(db, table, c, server);
    },
    undo: null,
    destructive: true,
  };
}

function dropColumn(table: string, column: string): Step {
  return {
    info: { kind: 'dropColumn', table, column },
    run: async (db) => {
      await db.schema.alterTable(table).dropColumn(column).execute();
    },
    undo: null,
    destructive: true,
  };
}
