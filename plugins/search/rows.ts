import { sql, type RawBuilder } from 'kysely';
import { type ColumnGrant, type Kernel, type Principal, withDeadline } from '../../kernel/api.js';
import {
  type AnyDb,
  primaryKeyColumns,
  rawValues,
  readsColumn as readRule,
  recordIdOf,
  rowDialect,
  SEARCHABLE_TYPES,
  selectList,
  toWireRow,
  type RowDialect,
} from '../../engine/rows/index.js';
import { compileSqlite, SQLITE_DEADLINE_FUNCTION, type SqliteWorker, sqliteFileOf } from '../../engine/sources/sqlite-off-thread.js';
import { connectionsRef, type ConnectionInfo } from '../connections/provides.js';
import type { Page } from '../pages/provides.js';
import type { Column } from '../../engine/schema/model.js';
import { schemaRef, type EffectiveColumn, type EffectiveTable } from '../schema/provides.js';

export const DATA_READ = 'data.read';
/** Rows a table gives at most (issue 28 §3). */
export const ROWS_PER_TABLE = 5;
export const TABLE_BUDGET_MS = 300;
export const TOTAL_BUDGET_MS = 1_000;
/** Tables read at once: the connection's pool is shared with /data. */
const AT_ONCE = 4;

export interface RowItem {
  id: string;
  title: string;
  subtitle: string;
  url: string;
  score: number;
}

interface Target {
  connectionId: string;
  table: EffectiveTable;
  column: EffectiveColumn;
}

/** Whether the caller reads `column` through `grant`: the data API's one rule (decisions DA2, engine/rows/column-access.ts). */
export function readsColumn(table: EffectiveTable, grant: ColumnGrant | null, column: EffectiveColumn): boolean {
  return grant !== null && readRule(column, new Set(table.primaryKey?.columns ?? []), grant);
}

/** A row search's answer is small (5 rows of a key and one column); past this it is refused. */
const SQLITE_MAX_BYTES = 1024 * 1024;

/** `%`, `_` and the escape itself are literal in the caller's text (the row layer's `!` escape). */
const literal = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);

/** The tables the caller may search rows of: through a searchable page they see, by a display column they read. */
export async function rowTargets(kernel: Kernel, principal: Principal, pages: readonly Page[], canSee: (p: Page) => boolean): Promise<Target[]> {
  const schema = kernel.plugin(schemaRef);
  const seen = new Set<string>();
  const out: Target[] = [];
  for (const page of pages) {
    const connectionId = page.connectionId!;
    const ref = page.table!;
    if (!canSee(page)) continue;
    const grant = principal.permissions.grantOn(DATA_READ, connectionId, ref);
    if (!grant) continue;
    const table = await schema.table(connectionId, ref).catch(() => null);
    if (!table || primaryKeyColumns(table).length === 0) continue;
    const configured = page.config.displayColumn;
    const name = typeof configured === 'string' ? configured : table.display.displayColumn;
    const column = table.columns.find((c) => c.name === name);
    if (!column || !SEARCHABLE_TYPES.has(column.type) || !readsColumn(table, grant, column)) continue;
    const key = `${connectionId}\u0000${ref}\u0000${column.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ connectionId, table, column });
  }
  return out;
}

/** MariaDB or MySQL, per connection: they spell a statement's time limit differently. */
const flavours = new WeakMap<object, Map<string, 'mariadb' | 'mysql'>>();

async function mysqlFlavour(kernel: Kernel, db: AnyDb, connectionId: string): Promise<'mariadb' | 'mysql'> {
  const known = flavours.get(kernel) ?? new Map<string, 'mariadb' | 'mysql'>();
  flavours.set(kernel, known);
  let f = known.get(connectionId);
  if (!f) {
    const res = await sql<{ v: string }>`select version() as v`.execute(db);
    f = /mariadb/i.test(String(res.rows[0]?.v ?? '')) ? 'mariadb' : 'mysql';
    known.set(connectionId, f);
  }
  return f;
}

/**
 * Up to `limit` rows of one table whose display column starts with `q`, then those containing it,
 * under a time limit the database enforces: PostgreSQL `SET LOCAL statement_timeout`, MariaDB
 * `SET STATEMENT max_statement_time … FOR`, MySQL `MAX_EXECUTION_TIME`. SQLite has none: its query
 * runs with the connection's own path and a LIMIT (decisions SR5).
 */
async function tableRows(kernel: Kernel, t: Target, q: string, limit: number, budgetMs: number, sqlite: () => SqliteWorker): Promise<RowItem[]> {
  return kernel.plugin(connectionsRef).withSource(t.connectionId, async (db, info: ConnectionInfo) => {
    const d = rowDialect(info.dialect);
    const pk = primaryKeyColumns(t.table);
    const columns: Column[] = pk.some((c) => c.name === t.column.name) ? [...pk] : [...pk, t.column];
    const at = columns.findIndex((c) => c.name === t.column.name);
    const prefix = `${literal(q)}%`;
    const contains = `%${literal(q)}%`;
    const ms = Math.max(1, Math.ceil(budgetMs));
    const flavour = info.dialect === 'mysql' ? await mysqlFlavour(kernel, db, t.connectionId) : null;
    const deadline = Date.now() + ms;
    // On SQLite the statement stops itself at the deadline, in the worker thread (below).
    const alive = info.dialect === 'sqlite' ? sql` and ${sql.raw(SQLITE_DEADLINE_FUNCTION)}(${sql.lit(deadline)}) = 1` : sql``;
    const statement = (where: RawBuilder<unknown>, n: number): RawBuilder<Record<string, unknown>> => {
      const body = sql`${selectList(d, columns)} from ${d.table(t.table)} where ${where}${alive} order by ${d.order(t.column)} limit ${sql.lit(n)}`;
      if (flavour === 'mariadb') return sql`set statement max_statement_time = ${sql.lit(ms / 1000)} for select ${body}`;
      if (flavour === 'mysql') return sql`select /*+ MAX_EXECUTION_TIME(${sql.lit(ms)}) */ ${body}`;
      return sql`select ${body}`;
    };
    // SQLite blocks the thread it runs on and has no statement timeout: its statements run in a worker thread, read-only.
    const file = info.dialect === 'sqlite' ? await sqliteFileOf(db) : null;
    const exec = async (statement: RawBuilder<Record<string, unknown>>, qdb: AnyDb): Promise<Record<string, unknown>[]> => {
      if (file === null) return (await statement.execute(qdb)).rows;
      const a = await sqlite().run(
        { file, readOnly: true, openReadOnly: true, ...compileSqlite(statement), maxBytes: SQLITE_MAX_BYTES },
        { deadline, graceMs: 200 },
      );
      if (a.ok) return a.rows;
      throw new Error(a.message);
    };
    const run = async (qdb: AnyDb) => {
      const first = await exec(statement(d.ilike(t.column, prefix), limit), qdb);
      const rest =
        first.length < limit ? await exec(statement(sql`${d.ilike(t.column, contains)} and not ${d.ilike(t.column, prefix)}`, limit - first.length), qdb) : [];
      return [first.map((r) => ({ r, prefix: true })), rest.map((r) => ({ r, prefix: false }))].flat();
    };
    const found =
      info.dialect === 'postgres'
        ? await db.transaction().execute(async (trx) => {
            await sql`set local statement_timeout = ${sql.lit(ms)}`.execute(trx);
            return run(trx);
          })
        : await run(db);
    return found.flatMap(({ r, prefix }) => itemOf(d, t, columns, at, r, prefix));
  });
}

function itemOf(d: RowDialect, t: Target, columns: readonly Column[], at: number, row: Record<string, unknown>, prefix: boolean): RowItem[] {
  const wire = toWireRow(d, columns, rawValues(row, columns.length));
  const recordId = recordIdOf(t.table, wire);
  if (recordId === null) return [];
  const value = wire[columns[at]!.name];
  const enc = encodeURIComponent;
  return [
    {
      id: `${t.connectionId}/${t.table.ref}/${recordId}`,
      title: value === null || value === undefined ? '' : String(value),
      subtitle: t.table.display.label,
      url: `/connections/${enc(t.connectionId)}/tables/${enc(t.table.ref)}/rows/${enc(recordId)}`,
      score: prefix ? 2 : 1,
    },
  ];
}

/**
 * Rows of every target, `AT_ONCE` tables at a time, each within TABLE_BUDGET_MS and all within
 * TOTAL_BUDGET_MS (decisions SR5). A table that ran out of time, or whose database refused or
 * could not be reached, gives nothing and makes the answer `partial`.
 */
export async function searchRows(
  kernel: Kernel,
  targets: readonly Target[],
  q: string,
  limit: number,
  sqlite: () => SqliteWorker,
  budget: { tableMs?: number; totalMs?: number } = {},
): Promise<{ items: RowItem[]; partial: boolean }> {
  const tableMs = budget.tableMs ?? TABLE_BUDGET_MS;
  const endsAt = Date.now() + (budget.totalMs ?? TOTAL_BUDGET_MS);
  const results: RowItem[][] = targets.map(() => []);
  let partial = false;
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const i = next++;
      const left = Math.min(tableMs, endsAt - Date.now());
      if (left <= 0) {
        partial = true;
        continue;
      }
      try {
        results[i] = await withDeadline(tableRows(kernel, targets[i]!, q, limit, left, sqlite), left, () => new Error('the table ran out of time'));
      } catch (err) {
        partial = true;
        kernel.log.debug({ err: { message: (err as Error).message }, table: targets[i]!.table.ref }, 'search: rows not read');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, targets.length) }, worker));
  // Prefix matches of every table first, then the rest, each in table order.
  const all = results.flat();
  return { items: [...all.filter((r) => r.score === 2), ...all.filter((r) => r.score !== 2)], partial };
}
