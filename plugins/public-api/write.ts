import { AppError, type RowWriteOp } from '../../kernel/api.js';
import {
  insertRow,
  parseRecordId,
  primaryKeyColumns,
  recordIdOf,
  toWireRow,
  type AnyDb,
  type PortableValue,
  type RowDialect,
} from '../../engine/rows/index.js';
import { onSource, openEndpoint, type Opened, type PublicCall } from './access.js';
import { confirmBooking } from './booking/confirm-row.js';
import { bookingTarget, ensureRoom, lateGuard, slotLockKey, windowGuard } from './booking/guards.js';
import { isContention, withSlotLocks } from './booking/lock.js';
import { slotAt } from './booking/slots.js';
import { instantOfWire } from './booking/times.js';
import { slotBusy, writeRefused, type WriteRefusal } from './errors.js';
import { partyOf, planInsert, planUpdate, portableInstant, splitBatchRow, type InsertPlan, type UpdatePlan } from './plans.js';
import { deleteInScope, readInScope, updateInScope } from './query/scoped.js';
import { keyOf, missing, pick } from './read.js';
import type { PublicApi } from './service.js';
import { checkRanges } from './values.js';

export const BATCH_MAX = 500;

const FAILURE: Record<string, WriteRefusal> = { unique: 'duplicate', 'foreign-key': 'reference', 'not-null': 'required', check: 'check', invalid: 'format' };

/** A database refusal → PUBLIC_WRITE_REFUSED; a lost race → PUBLIC_SLOT_BUSY; anything else stays a 500. */
function mapWriteError(err: unknown, d: RowDialect, opened: Opened): unknown {
  if (err instanceof AppError) return err;
  if (isContention(d.name, err)) return slotBusy();
  const f = d.writeFailure(err);
  if (!f) return err;
  // On a booking table a duplicate is another guest taking the same code or table at that instant.
  if (f.reason === 'unique' && opened.endpoint.booking) return slotBusy();
  return writeRefused(constraintColumn(opened, f.constraint), FAILURE[f.reason] ?? 'refused');
}

/**
 * The column a refusal is about: the database names a column (PostgreSQL's not-null), a
 * `table.column` list (SQLite) or a constraint or index (PostgreSQL, MySQL) whose first column it is.
 */
function constraintColumn(opened: Opened, named: string | null): string | null {
  if (!named) return null;
  const t = opened.table;
  const has = (n: string | undefined) => (n && t.columns.some((c) => c.name === n) ? n : null);
  const dotted = named.split(',')[0]!.trim().split('.').pop();
  const owner = [...t.uniques, ...t.indexes, ...t.foreignKeys].find((u) => u.name === named);
  return has(named) ?? has(owner?.columns[0]) ?? has(dotted);
}

/** One transaction holding the slot locks; refusals of the database mapped on the way out. */
async function locked<T>(db: AnyDb, d: RowDialect, opened: Opened, lockKeys: readonly string[], fn: (trx: AnyDb) => Promise<T>): Promise<T> {
  try {
    return await withSlotLocks(db, d.name, lockKeys, fn);
  } catch (err) {
    throw mapWriteError(err, d, opened);
  }
}

const wireKey = (opened: Opened, row: Record<string, unknown>) => Object.fromEntries(primaryKeyColumns(opened.table).map((c) => [c.name, row[c.name]]));

async function runInsert(trx: AnyDb, d: RowDialect, opened: Opened, plan: InsertPlan): Promise<Record<string, unknown>> {
  const rules = opened.endpoint.booking;
  if (rules && plan.booking) await ensureRoom(trx, d, opened, rules, plan.booking, null);
  const columns = opened.table.columns;
  const byName = new Map(columns.map((c) => [c.name, c]));
  const raw = await insertRow(
    trx,
    d,
    opened.table,
    [...plan.values].map(([name, v]) => [byName.get(name)!, v] as const),
    columns,
  );
  const row = toWireRow(d, columns, raw);
  await ensureInside(trx, d, opened, row);
  return row;
}

/**
 * A written row must still be inside the endpoint: the default filters hold for the row after a
 * write as for the rows a statement may reach, so a PATCH cannot move a row out of them (to
 * another tenant) any more than a POST can create one there. Run inside the write's
 * transaction: the refusal rolls the write back.
 */
async function ensureInside(trx: AnyDb, d: RowDialect, opened: Opened, row: Record<string, unknown>): Promise<void> {
  if (opened.scope.filters.length === 0) return;
  const id = recordIdOf(opened.table, row);
  const inside =
    id !== null && (await readInScope(trx, d, opened.table, parseRecordId(opened.table, id, 'row'), opened.scope.filters, primaryKeyColumns(opened.table)));
  if (!inside) throw writeRefused(null, 'outside-filter');
}

/** The slot an update books into, known before its transaction: from the new time, or the row's current one. */
async function rebookLock(db: AnyDb, d: RowDialect, opened: Opened, plan: UpdatePlan): Promise<{ lockKey: string; currentAt: number | null } | null> {
  const rules = opened.endpoint.booking;
  if (!rules || !plan.rebook) return null;
  let currentAt: number | null = null;
  let at = portableInstant(plan.values.get(rules.timeColumn));
  if (!plan.values.has(rules.timeColumn)) {
    const columns = opened.table.columns;
    const raw = await readInScope(db, d, opened.table, plan.key, opened.scope.filters, columns);
    if (!raw) missing(opened);
    const row = toWireRow(d, columns, raw);
    at = currentAt = instantOfWire(row[rules.timeColumn]);
  }
  const slot = at === null ? null : slotAt(rules, opened.endpoint.timeZone, at);
  if (!slot) throw writeRefused(rules.timeColumn, at === null ? 'required' : 'not-a-slot');
  return { lockKey: slotLockKey(opened.endpoint, slot), currentAt };
}

async function runUpdate(trx: AnyDb, d: RowDialect, opened: Opened, plan: UpdatePlan, now: number, currentAt: number | null): Promise<Record<string, unknown>> {
  const columns = opened.table.columns;
  const raw = await readInScope(trx, d, opened.table, plan.key, opened.scope.filters, columns, true);
  if (!raw) missing(opened);
  const old = toWireRow(d, columns, raw);
  windowGuard(opened, old, now);
  lateGuard(opened, old, now);
  const rules = opened.endpoint.booking;
  if (rules && plan.rebook) {
    const oldAt = instantOfWire(old[rules.timeColumn]);
    // The row moved between the look that chose the lock and this transaction: it lost a race.
    if (currentAt !== null && oldAt !== currentAt) throw slotBusy();
    const at = plan.values.has(rules.timeColumn) ? portableInstant(plan.values.get(rules.timeColumn)) : oldAt;
    const party = rules.partyColumn && !plan.values.has(rules.partyColumn) ? Number(old[rules.partyColumn] ?? 1) : partyOf(opened, plan.values);
    await ensureRoom(trx, d, opened, rules, bookingTarget(opened.endpoint, rules, at, party, now), wireKey(opened, old));
  }
  const byName = new Map(columns.map((c) => [c.name, c]));
  const updated = await updateInScope(
    trx,
    d,
    opened.table,
    plan.key,
    opened.scope.filters,
    [...plan.values].map(([n, v]) => [byName.get(n)!, v] as const),
    columns,
  );
  if (!updated) missing(opened);
  const row = toWireRow(d, columns, updated);
  await ensureInside(trx, d, opened, row);
  return row;
}

/**
 * An add-on's beforeWrite on the endpoint's table, if any (DESIGN D25). It sees the caller's
 * values before the endpoint's rules, and what it answers goes through them (writable columns,
 * defaults, filters) like the caller's own values. `previous` is the row as read before the write.
 */
async function beforeHook(
  api: PublicApi,
  opened: Opened,
  op: RowWriteOp,
  values: Record<string, unknown>,
  key: PortableValue[] | null,
): Promise<Record<string, unknown>> {
  const hooks = api.kernel.rowWrites;
  const connectionId = opened.endpoint.connectionId;
  if (!hooks.active(connectionId, opened.table.name)) return values;
  let previous: Record<string, unknown> | null = null;
  if (key) {
    previous = await onSource(api, opened, async (db, d) => {
      const raw = await readInScope(db, d, opened.table, key, opened.scope.filters, opened.table.columns);
      if (!raw) missing(opened);
      return toWireRow(d, opened.table.columns, raw);
    });
  }
  const pinned = Object.fromEntries(opened.endpoint.filters.filter((f) => f.op === 'eq').map((f) => [f.column, f.value]));
  return hooks.before({ connectionId, table: opened.table.name, op, values, previous, pinned });
}

function afterHook(api: PublicApi, opened: Opened, op: RowWriteOp, row: Record<string, unknown>): void {
  const hooks = api.kernel.rowWrites;
  if (hooks.active(opened.endpoint.connectionId, opened.table.name))
    hooks.after({ connectionId: opened.endpoint.connectionId, table: opened.table.name, op, row });
}

export async function createRecord(
  api: PublicApi,
  call: PublicCall,
  ref: string,
  given: Record<string, unknown>,
): Promise<{ row: Record<string, unknown>; id: string | null }> {
  const opened = await openEndpoint(api, call, ref, 'POST', 'write');
  const input = await beforeHook(api, opened, 'insert', given, null);
  const row = await onSource(api, opened, async (db, d) => {
    const plan = planInsert(opened, d, input, api.now());
    return locked(db, d, opened, plan.booking ? [slotLockKey(opened.endpoint, plan.booking.slot)] : [], (trx) => runInsert(trx, d, opened, plan));
  });
  confirmBooking(api, call.request, opened, row);
  afterHook(api, opened, 'insert', row);
  return { row: pick(row, opened.readable), id: recordIdOf(opened.table, row) };
}

export async function updateRecord(
  api: PublicApi,
  call: PublicCall,
  ref: string,
  id: string,
  given: Record<string, unknown>,
  put: boolean,
): Promise<Record<string, unknown>> {
  const opened = await openEndpoint(api, call, ref, put ? 'PUT' : 'PATCH', 'write');
  const input = await beforeHook(api, opened, 'update', given, keyOf(opened, id));
  const plan = planUpdate(opened, keyOf(opened, id), input, put);
  const row = await onSource(api, opened, async (db, d) => {
    checkRanges(d.name, opened.table, plan.values);
    const lock = await rebookLock(db, d, opened, plan);
    return locked(db, d, opened, lock ? [lock.lockKey] : [], (trx) => runUpdate(trx, d, opened, plan, api.now(), lock?.currentAt ?? null));
  });
  afterHook(api, opened, 'update', row);
  return pick(row, opened.readable);
}

export async function deleteRecord(api: PublicApi, call: PublicCall, ref: string, id: string): Promise<void> {
  const opened = await openEndpoint(api, call, ref, 'DELETE', 'write');
  const key = keyOf(opened, id);
  await beforeHook(api, opened, 'delete', {}, key);
  const removed = await onSource(api, opened, (db, d) =>
    locked(db, d, opened, [], async (trx) => {
      const columns = opened.table.columns;
      const raw = await readInScope(trx, d, opened.table, key, opened.scope.filters, columns, true);
      if (!raw) missing(opened);
      const old = toWireRow(d, columns, raw);
      windowGuard(opened, old, api.now());
      lateGuard(opened, old, api.now());
      if (!(await deleteInScope(trx, d, opened.table, key, opened.scope.filters))) missing(opened);
      return old;
    }),
  );
  afterHook(api, opened, 'delete', removed);
}

/** A batch's refusal names the row it is about. */
function rowRefusal(err: unknown, row: number): unknown {
  return err instanceof AppError && err.code === 'PUBLIC_WRITE_REFUSED' ? new AppError(err.code, { params: { ...err.params, row } }) : err;
}

type Planned = { plan: InsertPlan } | { plan: UpdatePlan; currentAt: number | null };

/** Plans every batch row before anything is written; a refusal names the row it is about. */
async function planBatch(
  api: PublicApi,
  db: AnyDb,
  d: RowDialect,
  opened: Opened,
  rows: unknown[],
  now: number,
): Promise<{ planned: Planned[]; lockKeys: string[] }> {
  const planned: Planned[] = [];
  const lockKeys: string[] = [];
  for (const [i, item] of rows.entries()) {
    try {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) throw writeRefused(null, 'type');
      const { key, rest: given } = splitBatchRow(opened, item as Record<string, unknown>);
      const rest = await beforeHook(api, opened, key ? 'update' : 'insert', given, key);
      if (!key) {
        const plan = planInsert(opened, d, rest, now);
        if (plan.booking) lockKeys.push(slotLockKey(opened.endpoint, plan.booking.slot));
        planned.push({ plan });
        continue;
      }
      // Updating through a batch is a PATCH: the key must hold it too (seed rule 1).
      if (!opened.endpoint.methods.includes('PATCH') || !api.admin.grants(opened.caller.key, opened.endpoint.ref, 'PATCH')) missing(opened);
      const plan = planUpdate(opened, key, rest, false);
      checkRanges(d.name, opened.table, plan.values);
      const lock = await rebookLock(db, d, opened, plan);
      if (lock) lockKeys.push(lock.lockKey);
      planned.push({ plan, currentAt: lock?.currentAt ?? null });
    } catch (err) {
      throw rowRefusal(err, i);
    }
  }
  return { planned, lockKeys };
}

/**
 * Inserts and updates in one transaction, all or none. Rows count one each against the
 * endpoint's limit and the batch once against the key's.
 */
export async function batchRecords(api: PublicApi, call: PublicCall, ref: string, rows: unknown[]): Promise<number> {
  const sized = rows.length >= 1 && rows.length <= BATCH_MAX;
  const opened = await openEndpoint(api, call, ref, 'BATCH', 'write', sized ? rows.length : 1);
  if (!sized) throw writeRefused(null, 'batch-size', { min: 1, max: BATCH_MAX, count: rows.length });
  const now = api.now();
  const inserted = await onSource(api, opened, async (db, d) => {
    const { planned, lockKeys } = await planBatch(api, db, d, opened, rows, now);
    return locked(db, d, opened, lockKeys, async (trx) => {
      const created: Record<string, unknown>[] = [];
      for (const [i, p] of planned.entries()) {
        try {
          if (p.plan.kind === 'insert') created.push(await runInsert(trx, d, opened, p.plan));
          else await runUpdate(trx, d, opened, p.plan, now, 'currentAt' in p ? p.currentAt : null);
        } catch (err) {
          throw rowRefusal(err, i);
        }
      }
      return created;
    });
  });
  for (const row of inserted) {
    confirmBooking(api, call.request, opened, row);
    afterHook(api, opened, 'insert', row);
  }
  return rows.length;
}
