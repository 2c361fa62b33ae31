import { sql, type Kysely, type Transaction } from 'kysely';
import type { SourceDialect } from '../connections/provides.js';
import { rowRefusal } from './failure.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any> | Transaction<any>;

/** A value left out of the INSERT so the column's default applies (an empty cell in a NOT NULL column that has one). */
export const USE_DEFAULT = Symbol('default');

export interface PendingRow {
  line: number;
  /** Aligned with WriteTarget.columns. */
  values: unknown[];
  /** The record as the file had it, for the error report: cells aligned with the upload's columns. */
  raw: unknown[] | Record<string, unknown>;
}

export interface WriteTarget {
  dialect: SourceDialect;
  table: { schema: string | null; name: string };
  columns: string[];
  mode: 'insert' | 'upsert';
  /** Upsert: the key the rows are matched on (the primary key or a unique constraint). */
  key: string[];
  /** PostgreSQL: each column's type as the database spells it (for unnest); null where it cannot be cast to. */
  pgTypes?: Array<string | null>;
}

// A type name as format_type() writes it, not an array type (unnest would flatten it).
const CASTABLE = /^[A-Za-z0-9_ ,().\"]+$/;

/** The column's type for `unnest($1::type[])`, or null to fall back to VALUES. */
export function pgCastType(nativeType: string): string | null {
  return CASTABLE.test(nativeType) && !nativeType.endsWith(']') ? nativeType : null;
}

export interface BatchOutcome {
  inserted: number;
  updated: number;
  refused: Array<{ row: PendingRow; reason: string }>;
}

/** Bind parameters per statement stay under SQLite's 32 766 and PostgreSQL's 65 535. */
const MAX_PARAMS = 30_000;

const tableOf = (db: Db, t: WriteTarget['table']) => (t.schema ? db.withSchema(t.schema) : db);

function records(target: WriteTarget, rows: PendingRow[]): Array<Record<string, unknown>> {
  return rows.map((r) => {
    const o: Record<string, unknown> = {};
    target.columns.forEach((c, i) => {
      if (r.values[i] !== USE_DEFAULT) o[c] = r.values[i];
    });
    return o;
  });
}

async function insert(db: Db, target: WriteTarget, rows: PendingRow[]): Promise<void> {
  // Rows leaving different columns to their defaults cannot share one VALUES list.
  const groups = new Map<string, Array<Record<string, unknown>>>();
  for (const rec of records(target, rows)) {
    const sig = Object.keys(rec).join('\u0000');
    let g = groups.get(sig);
    if (!g) groups.set(sig, (g = []));
    g.push(rec);
  }
  const updates = target.columns.filter((c) => !target.key.includes(c));
  for (const group of groups.values()) {
    const per = Math.max(1, Math.floor(MAX_PARAMS / Math.max(1, Object.keys(group[0]!).length)));
    for (let i = 0; i < group.length; i += per) {
      const part = group.slice(i, i + per);
      const cols = Object.keys(part[0]!);
      const types = cols.map((c) => target.pgTypes?.[target.columns.indexOf(c)] ?? null);
      // PostgreSQL: one array parameter per column instead of one parameter per value, which
      // spares the driver and the planner most of the work of a wide VALUES list.
      let q =
        target.dialect === 'postgres' && types.every((t) => t !== null)
          ? tableOf(db, target.table)
              .insertInto(target.table.name)
              .columns(cols)
              .expression(sql`select * from unnest(${sql.join(cols.map((c, j) => sql`${part.map((r) => r[c])}::${sql.raw(types[j]!)}[]`))})`)
          : tableOf(db, target.table).insertInto(target.table.name).values(part);
      if (target.mode === 'upsert') {
        if (target.dialect === 'mysql') {
          const set = updates.length ? updates : [target.key[0]!];
          q = q.onDuplicateKeyUpdate(Object.fromEntries(set.map((c) => [c, updates.length ? sql`values(${sql.id(c)})` : sql`${sql.id(c)}`])));
        } else {
          q = q.onConflict((oc) =>
            updates.length
              ? oc.columns(target.key).doUpdateSet(Object.fromEntries(updates.map((c) => [c, sql`excluded.${sql.id(c)}`])))
              : oc.columns(target.key).doNothing(),
          );
        }
      }
      await q.execute();
    }
  }
}

const keyOf = (target: WriteTarget, row: PendingRow) => JSON.stringify(target.key.map((k) => String(row.values[target.columns.indexOf(k)])));

/** Which of the rows' keys are already in the table, so an upsert can tell updates from inserts. */
async function existingKeys(db: Db, target: WriteTarget, rows: PendingRow[]): Promise<Set<string>> {
  const idx = target.key.map((k) => target.columns.indexOf(k));
  const found = new Set<string>();
  const per = Math.max(1, Math.floor(MAX_PARAMS / target.key.length));
  for (let i = 0; i < rows.length; i += per) {
    const part = rows.slice(i, i + per);
    const cond =
      target.key.length === 1
        ? sql`${sql.id(target.key[0]!)} in (${sql.join(part.map((r) => r.values[idx[0]!]))})`
        : sql.join(
            part.map(
              (r) =>
                sql`(${sql.join(
                  target.key.map((k, j) => sql`${sql.id(k)} = ${r.values[idx[j]!]}`),
                  sql` and `,
                )})`,
            ),
            sql` or `,
          );
    const from = target.table.schema ? sql.id(target.table.schema, target.table.name) : sql.id(target.table.name);
    const res = await sql<Record<string, unknown>>`select ${sql.join(target.key.map((k) => sql.id(k)))} from ${from} where ${cond}`.execute(db);
    for (const r of res.rows) found.add(JSON.stringify(target.key.map((k) => String(r[k]))));
  }
  return found;
}

/**
 * Writes a whole batch a faster way than INSERT (PostgreSQL's COPY), all or nothing: when the
 * database refuses a row it undoes its own part and rejects with that error. Resolves false
 * when it cannot take the rows, having written nothing.
 */
export type BulkWrite = (rows: PendingRow[]) => Promise<boolean>;

/** The bulk write's outcome: written, not possible, or refused (a row the database would not take). */
async function tryBulk(target: WriteTarget, rows: PendingRow[], bulk: BulkWrite): Promise<boolean | 'refused'> {
  try {
    return await bulk(rows);
  } catch (err) {
    if (rowRefusal(target.dialect, err) === null) throw err;
    return 'refused';
  }
}

/**
 * Writes one batch inside the caller's transaction. The batch goes as one statement (through
 * `bulk` when given and able, else an INSERT under a savepoint); when the database refuses it,
 * each row is retried as an INSERT under its own savepoint, so the rows it refuses (duplicate
 * key, foreign key, check…) are named one by one and the others still land. An error that is
 * not about a row (the database went away) is thrown.
 */
export async function writeBatch(trx: Db, target: WriteTarget, rows: PendingRow[], bulk?: BulkWrite): Promise<BatchOutcome> {
  const out: BatchOutcome = { inserted: 0, updated: 0, refused: [] };
  if (rows.length === 0) return out;
  const existing = target.mode === 'upsert' ? await existingKeys(trx, target, rows) : new Set<string>();
  const count = (row: PendingRow) => (existing.has(keyOf(target, row)) ? out.updated++ : out.inserted++);
  const bulked = bulk ? await tryBulk(target, rows, bulk) : false;
  if (bulked === true) {
    rows.forEach(count);
    return out;
  }
  if (bulked === false) {
    await sql`savepoint svc_batch`.execute(trx);
    try {
      await insert(trx, target, rows);
      await sql`release savepoint svc_batch`.execute(trx);
      rows.forEach(count);
      return out;
    } catch (err) {
      if (rowRefusal(target.dialect, err) === null) throw err;
      await sql`rollback to savepoint svc_batch`.execute(trx);
      await sql`release savepoint svc_batch`.execute(trx);
    }
  }
  for (const row of rows) {
    await sql`savepoint svc_row`.execute(trx);
    try {
      await insert(trx, target, [row]);
      await sql`release savepoint svc_row`.execute(trx);
      count(row);
    } catch (err) {
      const reason = rowRefusal(target.dialect, err);
      if (reason === null) throw err;
      await sql`rollback to savepoint svc_row`.execute(trx);
      await sql`release savepoint svc_row`.execute(trx);
      out.refused.push({ row, reason });
    }
  }
  return out;
}

/**
 * Rows of several batches in one bulk write: each statement costs a round trip and the
 * server's start-up work, which at 1 000 rows a COPY cost more than the rows. When the
 * database refuses the whole, the rows go again batch by batch (writeBatch), so the refused
 * rows are found as before and only their batches go row by row.
 */
export async function writeRows(trx: Db, target: WriteTarget, rows: PendingRow[], batchSize: number, bulk?: BulkWrite): Promise<BatchOutcome> {
  if (!bulk || target.mode !== 'insert' || rows.length <= batchSize) return writeBatch(trx, target, rows, bulk);
  const bulked = await tryBulk(target, rows, bulk);
  if (bulked === true) return { inserted: rows.length, updated: 0, refused: [] };
  const out: BatchOutcome = { inserted: 0, updated: 0, refused: [] };
  for (let i = 0; i < rows.length; i += batchSize) {
    const part = await writeBatch(trx, target, rows.slice(i, i + batchSize), bulked === 'refused' ? bulk : undefined);
    out.inserted += part.inserted;
    out.updated += part.updated;
    out.refused.push(...part.refused);
  }
  return out;
}

/** Upsert batches hold each key once: a second row for a key starts a new batch, so the last row wins. */
export function keyFor(target: WriteTarget): ((row: PendingRow) => string) | null {
  return target.mode === 'upsert' ? (row) => keyOf(target, row) : null;
}
