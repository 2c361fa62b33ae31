import { AppError, type RowWriteHooks, type RowWriteOp } from '../../kernel/api.js';
import {
  columnOf,
  deleteRow,
  insertRow,
  keysToGive,
  parseRecordId,
  parseWire,
  primaryKeyColumns,
  rangeRefusal,
  readRow,
  recordIdOf,
  RowInputError,
  setField,
  toWireRow,
  updateRow,
  type AnyDb,
  type Assignment,
  type InputIssue,
  type PortableValue,
  type RowDialect,
} from '../../engine/rows/index.js';
import type { Column } from '../../engine/schema/model.js';
import type { EffectiveTable } from '../schema/provides.js';
import type { TableView } from './access.js';
import { rowNotFound } from './errors.js';
import type { UndoStep } from './undo-store.js';

export type OpKind = 'create' | 'update' | 'delete';

export interface OpInput {
  op: OpKind;
  recordId?: string;
  values?: Record<string, unknown>;
}

export interface OpResult {
  op: OpKind;
  recordId: string;
  /** The row as stored, in the columns the caller may read; null after a delete. */
  row: Record<string, unknown> | null;
}

type WireRow = Record<string, unknown>;

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Applies row changes to one table inside a transaction, and answers, for each, what undo
 * needs: the full row before and after (every column, whatever the caller may read).
 */
export class RowWriter {
  private readonly all: Column[];

  constructor(
    private readonly d: RowDialect,
    private readonly table: EffectiveTable,
    private readonly view: TableView,
    private readonly hooks: { rowWrites: RowWriteHooks; connectionId: string } | null = null,
  ) {
    this.all = table.columns;
    if (hooks && !hooks.rowWrites.active(hooks.connectionId, table.name)) this.hooks = null;
  }

  /** An add-on's beforeWrite on this table, if any: it may change the values or refuse. */
  private async beforeHook(op: RowWriteOp, values: Record<string, unknown>, previous: WireRow | null): Promise<Record<string, unknown>> {
    if (!this.hooks) return values;
    return this.hooks.rowWrites.before({ connectionId: this.hooks.connectionId, table: this.table.name, op, values, previous });
  }

  private visible(row: WireRow): WireRow {
    const out: WireRow = {};
    for (const c of this.view.readable) setField(out, c.name, row[c.name]);
    return out;
  }

  private wire(raw: unknown[]): WireRow {
    return toWireRow(this.d, this.all, raw);
  }

  private assignments(values: Record<string, unknown>, path: string): Assignment[] {
    const issues: InputIssue[] = [];
    const out: Assignment[] = [];
    for (const [name, value] of Object.entries(values)) {
      const at = `${path}.values.${name}`;
      const c = columnOf(this.table, name);
      if (!c || !this.view.writable?.has(name)) {
        const why =
          c?.generated && this.view.readableNames.has(name)
            ? 'A generated column: the database computes it.'
            : `No column "${name}" you may write in this table.`;
        issues.push({ path: at, message: why });
        continue;
      }
      try {
        const parsed = parseWire(c, value, at);
        const outOfRange = rangeRefusal(this.d.name, c, parsed);
        if (outOfRange) issues.push({ path: at, message: outOfRange });
        else out.push([c, parsed]);
      } catch (err) {
        if (err instanceof RowInputError) issues.push(...err.issues);
        else throw err;
      }
    }
    if (issues.length) throw new RowInputError(issues);
    return out;
  }

  private async current(db: AnyDb, key: PortableValue[]): Promise<WireRow | null> {
    const raw = await readRow(db, this.d, this.table, key, this.all, true);
    return raw ? this.wire(raw) : null;
  }

  async apply(db: AnyDb, input: OpInput, path: string, recordPath: string, index?: number): Promise<{ result: OpResult; step: UndoStep }> {
    if (input.op === 'create') {
      if (input.recordId !== undefined) throw new RowInputError([{ path: recordPath, message: 'A create takes no recordId; give the key among the values.' }]);
      const values = this.assignments(await this.beforeHook('insert', input.values ?? {}, null), path);
      const missing = keysToGive(this.d, this.table, new Set(values.map(([c]) => c.name)));
      if (missing.length) {
        throw new RowInputError(
          missing.map((c) => ({
            path: `${path}.values.${c.name}`,
            message: 'Give the key: MySQL cannot report a key the database chose unless it is AUTO_INCREMENT.',
          })),
        );
      }
      const after = this.wire(await insertRow(db, this.d, this.table, values, this.all));
      return {
        result: { op: 'create', recordId: recordIdOf(this.table, after)!, row: this.visible(after) },
        step: { op: 'create', table: this.table.ref, before: null, after, columns: values.map(([c]) => c.name) },
      };
    }
    if (input.recordId === undefined) throw new RowInputError([{ path: recordPath, message: 'Name the row: recordId is required for update and delete.' }]);
    const key = parseRecordId(this.table, input.recordId, recordPath);
    if (input.op === 'update') {
      if (Object.keys(input.values ?? {}).length === 0) throw new RowInputError([{ path: `${path}.values`, message: 'Give at least one column to change.' }]);
      const before = await this.current(db, key);
      if (!before) throw rowNotFound(index);
      const values = this.assignments(await this.beforeHook('update', input.values ?? {}, before), path);
      const raw = await updateRow(db, this.d, this.table, key, values, this.all);
      if (!raw) throw rowNotFound(index);
      const after = this.wire(raw);
      return {
        result: { op: 'update', recordId: recordIdOf(this.table, after)!, row: this.visible(after) },
        step: { op: 'update', table: this.table.ref, before, after, columns: values.map(([c]) => c.name) },
      };
    }
    if (!this.view.writesWholeRows) {
      throw new AppError('FORBIDDEN', {
        message: 'Deleting a row needs a write grant on the whole table, not on some columns.',
        params: { permission: 'data.write', reason: 'columns', ...(index === undefined ? {} : { index }) },
      });
    }
    const before = await this.current(db, key);
    if (!before) throw rowNotFound(index);
    await this.beforeHook('delete', {}, before);
    if (!(await deleteRow(db, this.d, this.table, key))) throw rowNotFound(index);
    return {
      result: { op: 'delete', recordId: recordIdOf(this.table, before)!, row: null },
      step: { op: 'delete', table: this.table.ref, before, after: null, columns: [] },
    };
  }

  /**
   * What a write of `input` would be refused for, without writing (an LLM change set's dry run):
   * the codec's types, the columns the caller may write, the required columns of a create, the
   * key, a delete's whole-row grant. Empty when nothing is seen to refuse it; the database may
   * still (a unique key, a foreign key) when it is applied.
   */
  check(input: OpInput): string[] {
    const problems: string[] = [];
    const values = input.values ?? {};
    if (input.op !== 'delete') {
      try {
        this.assignments(values, 'change');
      } catch (err) {
        if (!(err instanceof RowInputError)) throw err;
        problems.push(...err.issues.map((i) => `${i.path.replace(/^change\.values\./, '')}: ${i.message}`));
      }
    }
    if (input.op === 'create') {
      const given = new Set(Object.keys(values));
      for (const c of this.all) {
        if (given.has(c.name) || c.nullable || c.default !== null || c.generated !== null || c.autoIncrement) continue;
        problems.push(`${c.name}: A value is required.`);
      }
      for (const c of keysToGive(this.d, this.table, given)) if (!problems.some((p) => p.startsWith(`${c.name}:`))) problems.push(`${c.name}: Give the key.`);
      return problems;
    }
    if (input.recordId === undefined) return [...problems, 'Name the row: a key is required for update and delete.'];
    try {
      parseRecordId(this.table, input.recordId, 'key');
    } catch (err) {
      if (!(err instanceof RowInputError)) throw err;
      problems.push(...err.issues.map((i) => `key: ${i.message}`));
    }
    if (input.op === 'update' && Object.keys(values).length === 0) problems.push('Give at least one column to change.');
    if (input.op === 'delete' && !this.view.writesWholeRows) problems.push('Deleting a row needs a write grant on the whole table, not on some columns.');
    return problems;
  }

  /** A value read from the database back to a parameter; what the codec would refuse (data the database let in) goes as it is. */
  private restore(c: Column, v: unknown): PortableValue {
    try {
      return parseWire(c, v, 'undo');
    } catch {
      return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : null;
    }
  }

  private keyOf(row: WireRow): PortableValue[] {
    return primaryKeyColumns(this.table).map((c) => this.restore(c, row[c.name]));
  }

  private conflict(row: WireRow, reason: 'row-changed' | 'row-deleted' | 'row-exists'): AppError {
    return new AppError('CONFLICT', {
      message: 'The row changed after this write, so undoing it would lose that change.',
      params: { reason, table: this.table.ref, recordId: recordIdOf(this.table, row) },
    });
  }

  /**
   * Undoes one step, if the row still holds what the write left there: for an update the
   * columns it set, for a create the whole row; a deleted row must still be absent.
   * Answers the step that undoes this undo.
   */
  async revert(db: AnyDb, step: UndoStep): Promise<{ result: OpResult; step: UndoStep }> {
    if (step.op === 'delete') {
      const before = step.before!;
      if (await this.current(db, this.keyOf(before))) throw this.conflict(before, 'row-exists');
      const values = this.all.filter((c) => c.generated === null && c.name in before).map((c) => [c, this.restore(c, before[c.name])] as const);
      const after = this.wire(await insertRow(db, this.d, this.table, values, this.all));
      return {
        result: { op: 'create', recordId: recordIdOf(this.table, after)!, row: this.visible(after) },
        step: { op: 'create', table: step.table, before: null, after, columns: values.map(([c]) => c.name) },
      };
    }
    const expected = step.after!;
    const key = this.keyOf(expected);
    const now = await this.current(db, key);
    if (!now) throw this.conflict(expected, 'row-deleted');
    const compared = step.op === 'create' ? this.all.filter((c) => c.generated === null).map((c) => c.name) : step.columns;
    if (compared.some((name) => !same(now[name], expected[name]))) throw this.conflict(expected, 'row-changed');
    if (step.op === 'create') {
      await deleteRow(db, this.d, this.table, key);
      return {
        result: { op: 'delete', recordId: recordIdOf(this.table, now)!, row: null },
        step: { op: 'delete', table: step.table, before: now, after: null, columns: [] },
      };
    }
    const before = step.before!;
    const values = step.columns
      .map((name) => columnOf(this.table, name))
      .filter((c): c is Column => !!c)
      .map((c) => [c, this.restore(c, before[c.name])] as const);
    const raw = await updateRow(db, this.d, this.table, key, values, this.all);
    if (!raw) throw this.conflict(expected, 'row-deleted');
    const after = this.wire(raw);
    return {
      result: { op: 'update', recordId: recordIdOf(this.table, after)!, row: this.visible(after) },
      step: { op: 'update', table: step.table, before: now, after, columns: step.columns },
    };
  }
}
