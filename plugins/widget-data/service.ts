/**
 * Runs widgets: the statement for a checked query (check.ts), built once for every dialect and
 * specialised by `dialects/<d>.ts`, computed by the database (GROUP BY, its own date truncation),
 * never by loading rows into Node. Deadlines: the database's statement limit (PostgreSQL,
 * MySQL/MariaDB) or the SQLite thread's end, 10 s a widget and 15 s a batch by default; at most 4
 * widgets at once per request and per connection, so widgets never take a pool shared with /data.
 */
import { sql } from 'kysely';
import { AppError, type Kernel, type Principal, withDeadline } from '../../kernel/api.js';
import { rowDialect, whereSql, type AnyDb, type RowDialect } from '../../engine/rows/index.js';
import { compileSqlite, SqliteWorker, sqliteFileOf } from '../../engine/sources/sqlite-off-thread.js';
import { connectionsRef } from '../connections/provides.js';
import type { EffectiveColumn } from '../schema/provides.js';
import { checkParsedQuery, checkQuery, keptPlan, type Checked, type Plan } from './check.js';
import { mysqlExecute, mysqlTimedOut, mysqlWidgets, probe, type MysqlServer } from './dialects/mysql.js';
import { pgExecute, pgTimedOut, postgresWidgets } from './dialects/postgres.js';
import { sqliteWidgets } from './dialects/sqlite.js';
import type { Sql, WidgetDialect } from './dialects/types.js';
import { BATCH_TIMEOUT_MS, MAX_POINTS, PARALLEL, WIDGET_TIMEOUT_MS, type WidgetDataOptions } from './options.js';
import type { WidgetDataProvides } from './provides.js';
import type { WidgetMeta, WidgetQuery, WidgetResult } from './schemas.js';
import { ResultCache } from './result-cache.js';
import { StatementMemo } from './statements.js';
import { localToInstant, offsetSpans, type OffsetSpan } from './zones.js';

const WIDGETS = { postgres: postgresWidgets, mysql: mysqlWidgets, sqlite: sqliteWidgets } as const satisfies Record<string, WidgetDialect>;
/** What one SQLite widget may bring back from its thread. */
const SQLITE_MAX_BYTES = 8 * 1024 * 1024;
const DAY = 86_400_000;

export interface WidgetAnswer {
  result: WidgetResult;
  meta: WidgetMeta;
}

export type BatchItem = { id: string; ok: true; result: WidgetResult; meta: WidgetMeta } | { id: string; ok: false; error: ErrorBody };

interface ErrorBody {
  code: string;
  message: string;
  params?: Record<string, unknown>;
  issues?: Array<{ path: string; code: string; message: string }>;
}

/** A counting semaphore: `run` waits for a free place, or fails at `deadline` while waiting. */
class Gate {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  constructor(private readonly size: number) {}

  async run<T>(deadline: number, onLate: () => Error, fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(
          () => {
            const i = this.queue.indexOf(go);
            if (i >= 0) this.queue.splice(i, 1);
            reject(onLate());
          },
          Math.max(0, deadline - Date.now()),
        );
        this.queue.push(go);
      });
    } else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** The database's refusal of a statement (not a lost connection): its own error with an SQL state. */
function refusal(dialect: Plan['dialect'], err: unknown): string | null {
  const e = err as { code?: unknown; severity?: unknown; sqlState?: unknown; errno?: unknown; fatal?: unknown; message?: unknown };
  if (dialect === 'postgres') {
    if (typeof e?.severity !== 'string' || typeof e.code !== 'string' || /^(08|57P|53)/.test(e.code)) return null;
  } else if (dialect === 'mysql') {
    if (typeof e?.sqlState !== 'string' || e.fatal === true) return null;
  }
  return String(e?.message ?? err).slice(0, 500);
}

/** A plan's key (planText) and its statements' names in the StatementMemo, made once a plan (a kept plan's too, WD10). */
interface PlanKeys {
  key: string;
  /** By the statement's part (`value`, `groups`, …): `<dialect> <part> <key>`. */
  statements: Map<string, string>;
}

const planKeys = new WeakMap<Plan, PlanKeys>();

function keysOf(plan: Plan): PlanKeys {
  let keys = planKeys.get(plan);
  if (!keys) planKeys.set(plan, (keys = { key: planText(plan), statements: new Map() }));
  return keys;
}

function statementKey(plan: Plan, keys: PlanKeys, part: string): string {
  let name = keys.statements.get(part);
  if (name === undefined) keys.statements.set(part, (name = `${plan.dialect} ${part} ${keys.key}`));
  return name;
}

/**
 * What a plan's statement depends on, as text: two plans with the same key run the same
 * statement (columns by name; the schema's changes forget the results, WD6).
 */
function planText(plan: Plan): string {
  const f = plan.filters.map((x) => [x.column.name, x.op, 'value' in x ? x.value : 'values' in x ? x.values : 'pattern' in x ? x.pattern : x.isNull]);
  return JSON.stringify([
    plan.connectionId,
    plan.table.ref,
    plan.metric.op,
    plan.metric.column?.name ?? null,
    plan.groupBy ? [plan.groupBy.column.name, plan.groupBy.limit, plan.groupBy.other] : null,
    plan.bucket ? [plan.bucket.column.name, plan.bucket.unit, plan.bucket.zoneText] : null,
    f,
    plan.bucketRange,
  ]);
}

export class WidgetData implements WidgetDataProvides {
  /** Up to PARALLEL threads, each statement to the least busy: a slow widget holds one thread, not every SQLite widget. */
  private readonly sqlite: Array<{ worker: SqliteWorker; busy: number }> = [];
  private readonly perConnection = new Map<string, Gate>();
  private readonly mysqlServers = new Map<string, Promise<MysqlServer>>();
  /** Results by statement, shared by callers of the same one (WD6). */
  readonly results: ResultCache;
  /** Compiled statements by plan, PostgreSQL and MySQL/MariaDB (WD8). */
  private readonly statements = new StatementMemo();
  readonly widgetTimeoutMs: number;
  readonly batchTimeoutMs: number;

  constructor(
    private readonly kernel: Kernel,
    options: WidgetDataOptions = {},
  ) {
    this.widgetTimeoutMs = options.widgetTimeoutMs ?? WIDGET_TIMEOUT_MS;
    this.batchTimeoutMs = options.batchTimeoutMs ?? BATCH_TIMEOUT_MS;
    this.results = new ResultCache(Date.now, kernel.config.widgetCacheMs);
  }

  timeout(): AppError {
    return new AppError('WIDGET_QUERY_TIMEOUT', { params: { timeoutMs: this.widgetTimeoutMs } });
  }

  /** One widget as sent (a batch's, a provided caller's): checked and run; refusals are thrown. */
  async query(
    principal: Principal,
    raw: unknown,
    path: string,
    deadline = Date.now() + this.widgetTimeoutMs,
    opts: { fresh?: boolean } = {},
  ): Promise<WidgetAnswer> {
    return this.answer(await checkQuery(this.kernel, principal, raw, path), path, deadline, opts);
  }

  /** POST /widget-data/query: the body's schema has checked the query's shape; the rest of the check is checkQuery's. */
  async queryParsed(principal: Principal, query: WidgetQuery, opts: { fresh?: boolean } = {}): Promise<WidgetAnswer> {
    const path = 'body.query';
    const deadline = Date.now() + this.widgetTimeoutMs;
    // A plan checked before for this caller's view is at hand without a step (K40, WD10).
    const kept = keptPlan(this.kernel, principal, query, path);
    if (kept) return this.answerPlan(kept, path, deadline, opts);
    return this.answer(await checkParsedQuery(this.kernel, principal, query, path), path, deadline, opts);
  }

  private answer(checked: Checked, path: string, deadline: number, opts: { fresh?: boolean }): Promise<WidgetAnswer> {
    if (!checked.ok) return Promise.reject(checked.error);
    return this.answerPlan(checked.plan, path, deadline, opts);
  }

  private async answerPlan(plan: Plan, path: string, deadline: number, opts: { fresh?: boolean }): Promise<WidgetAnswer> {
    let gate = this.perConnection.get(plan.connectionId);
    if (!gate) this.perConnection.set(plan.connectionId, (gate = new Gate(PARALLEL)));
    const keys = keysOf(plan);
    const answer = await this.results.get(keys.key, { connectionId: plan.connectionId, table: plan.table.ref, fresh: opts.fresh === true }, () =>
      gate.run(
        deadline,
        () => this.timeout(),
        () => this.run(plan, keys, deadline, path),
      ),
    );
    return { result: answer.result, meta: { exact: true, elapsedMs: answer.elapsedMs, computedAt: answer.computedAt, cached: answer.cached } };
  }

  /** Rows changed through the API, or the schema: those results are not answered again (WD6). */
  listen(): void {
    this.kernel.events.listen(['data.changed', 'schema.changed', 'connections.changed'], (event) => {
      const data = event.data as { connectionId?: unknown; table?: unknown } | null;
      if (typeof data?.connectionId !== 'string') return this.results.clear();
      this.results.forget(data.connectionId, event.kind === 'data.changed' && typeof data.table === 'string' ? data.table : undefined);
    });
  }

  /** POST /widget-data/batch: each query on its own, 4 at once, under the batch's deadline; one failure never fails the batch. */
  async batch(principal: Principal, queries: Array<{ id: string; query: unknown }>, opts: { fresh?: boolean } = {}): Promise<BatchItem[]> {
    const batchDeadline = Date.now() + this.batchTimeoutMs;
    const out: BatchItem[] = new Array(queries.length);
    let next = 0;
    const worker = async () => {
      while (next < queries.length) {
        const i = next++;
        const { id, query } = queries[i]!;
        try {
          if (Date.now() >= batchDeadline) throw this.timeout();
          const answer = await this.query(principal, query, `body.queries.${i}.query`, Math.min(batchDeadline, Date.now() + this.widgetTimeoutMs), opts);
          out[i] = { id, ok: true, ...answer };
        } catch (err) {
          out[i] = { id, ok: false, error: this.errorBody(err) };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, queries.length) }, worker));
    return out;
  }

  private errorBody(err: unknown): ErrorBody {
    if (!(err instanceof AppError)) {
      this.kernel.log.error({ err }, 'widget query failed');
      return { code: 'INTERNAL', message: 'Something went wrong on our side.' };
    }
    return {
      code: err.code,
      message: err.message,
      ...(err.params && Object.keys(err.params).length ? { params: err.params } : {}),
      ...(err.issues?.length ? { issues: err.issues } : {}),
    };
  }

  async close(): Promise<void> {
    for (const t of this.sqlite.splice(0)) await t.worker.close();
  }

  private sqliteThread(): { worker: SqliteWorker; busy: number } {
    const idle = this.sqlite.find((t) => t.busy === 0);
    if (idle) return idle;
    if (this.sqlite.length < PARALLEL) {
      const t = { worker: new SqliteWorker({ timedOut: () => this.timeout(), name: 'widgets SQLite' }), busy: 0 };
      this.sqlite.push(t);
      return t;
    }
    return this.sqlite.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  // ---- running a plan ----

  /** `keys`: the plan's (keysOf), which name its statements too (WD8). */
  private async run(plan: Plan, keys: PlanKeys, deadline: number, path: string): Promise<WidgetResult> {
    if (Date.now() >= deadline) throw this.timeout();
    const connections = this.kernel.plugin(connectionsRef);
    const d = rowDialect(plan.dialect);
    const w: WidgetDialect = WIDGETS[plan.dialect];
    if (plan.dialect === 'sqlite') {
      const file = await connections.withSource(plan.connectionId, (db) => sqliteFileOf(db));
      // Not kept: a SQLite statement names its deadline (svc_deadline_ok, WD5) and its zone's offsets over the rows' span.
      return this.compute(plan, d, w, path, deadline, (_part, build) => this.sqliteRows(plan, file, build(), deadline));
    }
    const onSource = <T>(fn: (db: AnyDb) => Promise<T>): Promise<T> =>
      plan.dialect === 'postgres'
        ? connections.withReadSource(plan.connectionId, { statementTimeoutMs: this.widgetTimeoutMs }, fn)
        : connections.withSource(plan.connectionId, fn);
    return onSource(async (db) => {
      let server: MysqlServer | null = null;
      if (plan.dialect === 'mysql') {
        let p = this.mysqlServers.get(plan.connectionId);
        if (!p) {
          this.mysqlServers.set(plan.connectionId, (p = probe(db)));
          p.catch(() => this.mysqlServers.delete(plan.connectionId));
        }
        server = await p;
        if (plan.bucket?.zone.kind === 'named' && plan.bucket.column.type !== 'date' && !server.zoneTables)
          throw new AppError('VALIDATION_FAILED', {
            issues: [
              {
                path: `${path}.timeBucket.timeZone`,
                code: 'timezone-unsupported',
                message: "This database's server has no time zone tables (mysql_tzinfo_to_sql): use UTC or a fixed offset such as +02:00.",
              },
            ],
          });
      }
      const exec = async (part: string, build: () => Sql) => {
        const left = deadline - Date.now();
        if (left <= 0) throw this.timeout();
        const statement = this.statements.get(plan.table, statementKey(plan, keys, part), () => build().compile(db));
        try {
          // The database ends the statement at the deadline; should it not answer, the caller is not kept waiting much longer.
          return await withDeadline(
            plan.dialect === 'postgres' ? pgExecute(db, statement, left, this.widgetTimeoutMs) : mysqlExecute(db, statement, left, server!),
            Math.max(0, deadline - Date.now()) + 2000,
            () => this.timeout(),
          );
        } catch (err) {
          if (err instanceof AppError) throw err;
          if (plan.dialect === 'postgres' ? pgTimedOut(err) : mysqlTimedOut(err)) throw this.timeout();
          const reason = refusal(plan.dialect, err);
          if (reason !== null) throw new AppError('WIDGET_QUERY_REFUSED', { params: { reason } });
          throw err;
        }
      };
      return this.compute(plan, d, w, path, deadline, exec);
    });
  }

  private async sqliteRows(plan: Plan, file: string, statement: Sql, deadline: number): Promise<Record<string, unknown>[]> {
    // Compiled with the SQLite adapter only: nothing runs on the API's thread.
    const compiled = compileSqlite(statement);
    const thread = this.sqliteThread();
    thread.busy++;
    let a;
    try {
      a = await thread.worker.run(
        { file, readOnly: true, openReadOnly: true, ...compiled, maxBytes: SQLITE_MAX_BYTES },
        // The statement stops itself at the deadline (svc_deadline_ok); the thread is ended only if it did not.
        { deadline, graceMs: 1000 },
      );
    } finally {
      thread.busy--;
    }
    if (a.ok) return a.rows;
    if (a.late) throw this.timeout();
    if (a.tooLarge) throw new AppError('WIDGET_QUERY_REFUSED', { params: { reason: 'The answer is too large.' } });
    throw new AppError('WIDGET_QUERY_REFUSED', { params: { reason: a.message.slice(0, 500) } });
  }

  private async compute(
    plan: Plan,
    d: RowDialect,
    w: WidgetDialect,
    path: string,
    deadline: number,
    exec: (part: string, build: () => Sql) => Promise<Record<string, unknown>[]>,
  ): Promise<WidgetResult> {
    const metric = plan.metric;
    const value = (raw: unknown) => toValue(d, metric.op, metric.column, raw);
    // The statement's pieces, built only when a statement is (a kept one is not, WD8).
    let pieces: Pieces | undefined;
    const p = () => (pieces ??= statementPieces(plan, d, w, deadline));

    if (plan.groupBy) {
      const { column: g, limit, other } = plan.groupBy;
      const gId = sql.id(g.name);
      const rows = await exec('groups', () => {
        const { from, agg, outV, whereAnd } = p();
        const outK = d.select({ ...g, name: '__k' });
        return sql`select ${outK} as wk, ${outV} as wv from (select ${gId} as __k, ${agg} as __v from ${from} ${whereAnd(null)} group by 1) s order by (s.__v is null), s.__v desc, (s.__k is null), s.__k limit ${sql.lit(limit + 1)}`;
      });
      const groups = rows.slice(0, limit).map((r) => ({ key: d.toWire(g, r.wk) as string | number | boolean | null, value: value(r.wv) }));
      if (!other || rows.length <= limit) return { kind: 'groups', groups };
      const rest = await exec('other', () => {
        const { from, agg, outV, whereAnd } = p();
        const top = sql`select ${gId} as __k, 1 as __m from ${from} ${whereAnd(null)} group by 1 order by (${agg} is null), ${agg} desc, (${gId} is null), ${gId} limit ${sql.lit(limit)}`;
        return sql`select ${outV} as wv from (select ${agg} as __v from ${from} left join (${top}) __top on ${w.same(gId, sql`__top.__k`)} ${whereAnd(sql`__top.__m is null`)}) s`;
      });
      return { kind: 'groups', groups, other: value(rest[0]?.wv ?? null) };
    }

    if (plan.bucket) {
      const { column, unit, zone } = plan.bucket;
      let spans: OffsetSpan[] | null = null;
      if (w.needsSpans && column.type !== 'date') {
        let lo = plan.bucketRange.from === null ? null : instantOf(plan.bucketRange.from);
        let hi = plan.bucketRange.to === null ? null : instantOf(plan.bucketRange.to);
        if (lo === null || hi === null) {
          const [r] = await exec('span', () => {
            const { from, whereAnd } = p();
            const c = sql.id(column.name);
            return sql`select min(${c}) as lo, max(${c}) as hi from ${from} ${whereAnd(null)}`;
          });
          lo ??= r?.lo == null ? null : instantOf(String(r.lo));
          hi ??= r?.hi == null ? null : instantOf(String(r.hi));
        }
        const now = Date.now();
        spans = offsetSpans(zone, Math.floor(((lo ?? now) - DAY) / 1000) * 1000, (hi ?? now) + DAY);
      }
      const rows = await exec('series', () => {
        const { from, agg, outV, whereAnd } = p();
        const bucket = w.bucket({ column, unit, zone, spans });
        return sql`select s.__k as wk, ${outV} as wv from (select ${bucket} as __k, ${agg} as __v from ${from} ${whereAnd(sql`${sql.id(column.name)} is not null`)} group by 1) s order by s.__k limit ${sql.lit(MAX_POINTS + 1)}`;
      });
      if (rows.length > MAX_POINTS)
        throw new AppError('VALIDATION_FAILED', {
          issues: [{ path: `${path}.timeBucket.unit`, code: 'limit', message: `More than ${MAX_POINTS} buckets: take a larger unit or a shorter range.` }],
        });
      return { kind: 'series', points: rows.map((r) => ({ t: localToInstant(zone, String(r.wk)), value: value(r.wv) })) };
    }

    const rows = await exec('value', () => {
      const { from, agg, outV, whereAnd } = p();
      return sql`select ${outV} as wv from (select ${agg} as __v from ${from} ${whereAnd(null)}) s`;
    });
    return { kind: 'value', value: value(rows[0]?.wv ?? null) };
  }
}

/** What every widget statement is made of: the table, the aggregate, the value's output and the WHERE (with more conditions). */
interface Pieces {
  from: Sql;
  agg: Sql;
  outV: Sql;
  whereAnd(more: Sql | null): Sql;
}

function statementPieces(plan: Plan, d: RowDialect, w: WidgetDialect, deadline: number): Pieces {
  const where = whereSql(d, plan.filters, null, []);
  const metric = plan.metric;
  return {
    from: d.table(plan.table),
    agg: aggregate(metric.op, metric.column),
    outV: metric.op === 'min' || metric.op === 'max' ? d.select({ ...metric.column!, name: '__v' }) : sql.id('__v'),
    whereAnd(more) {
      const parts = [where, more, w.alive(deadline)].filter((p): p is Sql => p !== null);
      return parts.length ? sql`where ${sql.join(parts, sql` and `)}` : sql``;
    },
  };
}

/** A date-time as a source holds it (no zone: UTC), or with Z or an offset → epoch ms. */
function instantOf(text: string): number | null {
  const t = text.includes('T') || text.includes(' ') ? text.replace(' ', 'T') : `${text}T00:00:00`;
  const ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(t) ? t : `${t}Z`);
  return Number.isNaN(ms) ? null : ms;
}

function aggregate(op: Plan['metric']['op'], column: EffectiveColumn | null): Sql {
  const c = column ? sql.id(column.name) : null;
  switch (op) {
    case 'count':
      return c ? sql`count(${c})` : sql`count(*)`;
    case 'count_distinct':
      return sql`count(distinct ${c})`;
    default:
      return sql`${sql.raw(op)}(${c})`;
  }
}

/** Counts, sums and averages are JSON numbers; min and max the column's own wire value (decisions WD6). */
function toValue(d: RowDialect, op: Plan['metric']['op'], column: EffectiveColumn | null, raw: unknown): number | string | boolean | null {
  if (raw === null || raw === undefined) return op === 'count' || op === 'count_distinct' ? 0 : null;
  if (op === 'min' || op === 'max') return d.toWire(column!, raw) as number | string | boolean | null;
  const n = typeof raw === 'number' ? raw : Number(raw as string);
  return Number.isFinite(n) ? n : null;
}
