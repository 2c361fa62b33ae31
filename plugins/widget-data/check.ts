/**
 * A widget's query against the table and the caller: which columns it may use (data.read through
 * DataProvides.tableView, decisions DA2), which types each metric takes, the zone, the page. One
 * function for POST /widget-data/* and for the pages plugin's layout check (WidgetQueryCheck), so
 * a layout is refused for exactly what a query is refused for.
 */
import { AppError, type ErrorIssue, type Kernel, type Principal } from '../../kernel/api.js';
import { ORDERABLE_TYPES, parseListParams, parseWire, RowInputError, type Filter, type InputIssue } from '../../engine/rows/index.js';
import { connectionsRef, type SourceDialect } from '../connections/provides.js';
import { dataRef, type ReadView } from '../data/provides.js';
import { pagesRef, type Page } from '../pages/provides.js';
import type { EffectiveColumn, EffectiveTable } from '../schema/provides.js';
import { widgetQuerySchema, type BucketUnit, type MetricOp, type WidgetQuery } from './schemas.js';
import { parseZone, type Zone } from './zones.js';

const NUMERIC = new Set<EffectiveColumn['type']>(['integer', 'bigint', 'decimal', 'float']);
const UNGROUPABLE = new Set<EffectiveColumn['type']>(['json', 'binary']);
const TIMELIKE = new Set<EffectiveColumn['type']>(['date', 'datetime']);

/** What the dialect files run: the query with its columns resolved. */
export interface Plan {
  connectionId: string;
  dialect: SourceDialect;
  table: EffectiveTable;
  metric: { op: MetricOp; column: EffectiveColumn | null };
  groupBy: { column: EffectiveColumn; limit: number; other: boolean } | null;
  bucket: { column: EffectiveColumn; unit: BucketUnit; zone: Zone; zoneText: string } | null;
  /** The caller's filters, the range and the page's filters, all applied. */
  filters: Filter[];
  /** For the SQLite offsets: the range's bounds on the bucket's column, when it has them (wire values). */
  bucketRange: { from: string | null; to: string | null };
}

export type Checked = { ok: true; plan: Plan } | { ok: false; error: AppError };

const invalid = (issues: ErrorIssue[]) => new AppError('VALIDATION_FAILED', { issues });

function issueCode(i: InputIssue): string {
  if (i.message.startsWith('No column "')) return 'unknown-column';
  if (i.message.startsWith('Unknown operator')) return 'unknown-operator';
  return 'invalid-filter';
}

/** A page config's filters (decisions PG5: `[{column, op, value}]`) as the data API's query keys. */
function pageFilters(page: Page): Record<string, string[]> {
  const f = page.config.filters;
  const out: Record<string, string[]> = {};
  if (!Array.isArray(f)) return out;
  for (const item of f as Array<{ column?: unknown; op?: unknown; value?: unknown }>) {
    if (typeof item?.column !== 'string' || typeof item.op !== 'string') continue;
    (out[`filter[${item.column}][${item.op}]`] ??= []).push(String(item.value));
  }
  return out;
}

/**
 * Checks `raw` (a WidgetQuery as sent) for the caller. Shape, column and type problems are
 * VALIDATION_FAILED with issues under `path`; a connection, table or page the caller cannot
 * reach is 404 NOT_FOUND, as /data and /pages answer.
 */
export async function checkQuery(kernel: Kernel, principal: Principal, raw: unknown, path: string): Promise<Checked> {
  const parsed = widgetQuerySchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      error: invalid(parsed.error.issues.map((i) => ({ path: [path, ...i.path.map(String)].join('.'), code: i.code, message: i.message }))),
    };
  return checkParsedQuery(kernel, principal, parsed.data, path);
}

/** Plans kept per query text (at most; the oldest go first), for one table and read grant. */
export const PLANS_PER_VIEW = 200;

/**
 * Plans already checked (decisions WD10), by the caller's readable columns of the table (one
 * array per effective table and data.read grant, both kept between requests: data/access.ts,
 * K25) and the query's text with its dialect and path. A new schema or another grant is another
 * array, so a plan is never answered for a table or a grant it was not checked against. Queries
 * naming a page are not kept: the page's visibility and filters are looked up every time.
 */
const plans = new WeakMap<readonly EffectiveColumn[], Map<string, Plan>>();

const planText = (dialect: SourceDialect, q: WidgetQuery, path: string) => `${dialect}\u0000${path}\u0000${JSON.stringify(q)}`;

/**
 * The plan checked before for the same caller's view and query, when everything it depends on
 * is at hand without waiting (K40): the connection, the table's effective schema, the plan.
 * Undefined otherwise: checkParsedQuery then checks it (and keeps it).
 */
export function keptPlan(kernel: Kernel, principal: Principal, q: WidgetQuery, path: string): Plan | undefined {
  if (q.pageId !== undefined) return undefined;
  const info = kernel.plugin(connectionsRef).infoNow(q.connectionId);
  if (!info) return undefined;
  const view = kernel.plugin(dataRef).tableViewNow(principal, q.connectionId, q.table);
  if (!view) return undefined;
  return plans.get(view.readable)?.get(planText(info.dialect, q, path));
}

function keepPlan(readable: readonly EffectiveColumn[], text: string, plan: Plan): void {
  let kept = plans.get(readable);
  if (!kept) plans.set(readable, (kept = new Map()));
  if (kept.size >= PLANS_PER_VIEW) kept.delete(kept.keys().next().value!);
  kept.set(text, plan);
}

/** checkQuery for a query whose shape the route's own body schema has checked already (POST /widget-data/query). */
export async function checkParsedQuery(kernel: Kernel, principal: Principal, q: WidgetQuery, path: string): Promise<Checked> {
  let info;
  try {
    info = kernel.plugin(connectionsRef).infoNow(q.connectionId) ?? (await kernel.plugin(connectionsRef).info(q.connectionId));
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return { ok: false, error: new AppError('NOT_FOUND', { message: 'No such connection.' }) };
    throw err;
  }
  const data = kernel.plugin(dataRef);
  let view = data.tableViewNow(principal, q.connectionId, q.table);
  if (view === undefined) view = await data.tableView(principal, q.connectionId, q.table);
  if (!view) return { ok: false, error: new AppError('NOT_FOUND', { message: 'No such table on this connection.' }) };
  if (q.pageId !== undefined) return checkAgainst(kernel, principal, q, path, info.dialect, view);
  const text = planText(info.dialect, q, path);
  const kept = plans.get(view.readable)?.get(text);
  if (kept) return { ok: true, plan: kept };
  const checked = await checkAgainst(kernel, principal, q, path, info.dialect, view);
  if (checked.ok) keepPlan(view.readable, text, checked.plan);
  return checked;
}

/** The query against the connection's dialect and the caller's view of the table: the plan, or every issue found. */
async function checkAgainst(kernel: Kernel, principal: Principal, q: WidgetQuery, path: string, dialect: SourceDialect, view: ReadView): Promise<Checked> {
  const issues: ErrorIssue[] = [];
  const at = (sub: string) => `${path}.${sub}`;
  const { table } = view;

  /** A column the caller may read and that is not secret; anything else is unknown, never forbidden. */
  const column = (name: string, sub: string): EffectiveColumn | null => {
    const c = view.readableNames.has(name) ? table.columns.find((x) => x.name === name) : undefined;
    if (!c || c.display.secret) {
      issues.push({ path: at(sub), code: 'unknown-column', message: `No column "${name}" you may read in this table.` });
      return null;
    }
    return c;
  };
  const opType = (sub: string, message: string) => issues.push({ path: at(sub), code: 'op-type', message });

  // The metric.
  let metricColumn: EffectiveColumn | null = null;
  if (q.metric.column === undefined) {
    if (q.metric.op !== 'count') issues.push({ path: at('metric.column'), code: 'required', message: `${q.metric.op} needs a column.` });
  } else {
    metricColumn = column(q.metric.column, 'metric.column');
    if (metricColumn) {
      const t = metricColumn.type;
      if ((q.metric.op === 'sum' || q.metric.op === 'avg') && !NUMERIC.has(t))
        opType('metric.column', `${q.metric.op} takes a number column; "${metricColumn.name}" is ${t}.`);
      if ((q.metric.op === 'min' || q.metric.op === 'max') && (!ORDERABLE_TYPES.has(t) || t === 'boolean'))
        opType('metric.column', `${q.metric.op} takes an orderable column; "${metricColumn.name}" is ${t}.`);
      if ((q.metric.op === 'count' || q.metric.op === 'count_distinct') && UNGROUPABLE.has(t))
        opType('metric.column', `${q.metric.op} cannot compare ${t} values.`);
    }
  }

  if (q.groupBy && q.timeBucket)
    issues.push({ path: at('timeBucket'), code: 'group-and-bucket', message: 'A widget groups by a column or by time, not both.' });

  let groupBy: Plan['groupBy'] = null;
  if (q.groupBy) {
    const c = column(q.groupBy.column, 'groupBy.column');
    const limit = q.groupBy.limit ?? 10;
    if (limit < 1 || limit > 50) issues.push({ path: at('groupBy.limit'), code: 'limit', message: 'Between 1 and 50 groups.' });
    if (c && UNGROUPABLE.has(c.type)) opType('groupBy.column', `A ${c.type} column cannot be grouped by.`);
    if (c) groupBy = { column: c, limit, other: q.groupBy.other ?? false };
  }

  let bucket: Plan['bucket'] = null;
  if (q.timeBucket) {
    const c = column(q.timeBucket.column, 'timeBucket.column');
    if (c && !TIMELIKE.has(c.type)) opType('timeBucket.column', `Time buckets take a date or datetime column; "${c.name}" is ${c.type}.`);
    const zoneText = q.timeBucket.timeZone ?? 'UTC';
    const zone = parseZone(zoneText);
    if (!zone)
      issues.push({ path: at('timeBucket.timeZone'), code: 'timezone-invalid', message: `Not a time zone: "${zoneText}" (an IANA name, UTC or ±HH:MM).` });
    if (c && zone) bucket = { column: c, unit: q.timeBucket.unit, zone, zoneText };
  }

  // Filters: the caller's, through the data API's parser against the columns it reads.
  const filters: Filter[] = [];
  const callerFilters = q.filters ?? {};
  for (const key of Object.keys(callerFilters)) {
    if (!key.startsWith('filter[')) issues.push({ path: at(`filters.${key}`), code: 'unknown-filter', message: 'Filters are written filter[column][op].' });
  }
  const own = Object.fromEntries(Object.entries(callerFilters).filter(([k]) => k.startsWith('filter[')));
  // A secret primary key is read to address rows, never filtered or aggregated here.
  const usable = new Set(view.readable.filter((c) => !c.display.secret).map((c) => c.name));
  try {
    filters.push(...parseListParams(own, { table, readable: usable }).filters);
  } catch (err) {
    if (!(err instanceof RowInputError)) throw err;
    for (const i of err.issues) issues.push({ path: at(`filters.${i.path.replace(/^query\./, '')}`), code: issueCode(i), message: i.message });
  }

  // The range, as filters gte/lt on its column.
  const bucketRange: Plan['bucketRange'] = { from: null, to: null };
  if (q.range) {
    const c = column(q.range.column, 'range.column');
    if (c && !ORDERABLE_TYPES.has(c.type)) opType('range.column', `A ${c.type} column has no range.`);
    else if (c) {
      for (const [bound, op] of [
        ['from', 'gte'],
        ['to', 'lt'],
      ] as const) {
        const text = q.range[bound];
        if (text === undefined) continue;
        try {
          const value = parseWire(c, NUMERICISH.has(c.type) && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text, at(`range.${bound}`));
          filters.push({ column: c, op, value, path: at(`range.${bound}`) });
          if (bucket && bucket.column.name === c.name && typeof value === 'string') bucketRange[bound] = value;
        } catch (err) {
          if (!(err instanceof RowInputError)) throw err;
          for (const i of err.issues) issues.push({ path: i.path, code: 'invalid-value', message: i.message });
        }
      }
    }
  }

  // The page: seen by the caller, its filters on top (they use any column of the table: the page's author chose them).
  if (q.pageId !== undefined) {
    const page = await kernel.plugin(pagesRef).findVisible(principal, q.pageId);
    if (!page) return { ok: false, error: new AppError('NOT_FOUND', { message: 'No such page.' }) };
    if (page.connectionId !== null && page.table !== null) {
      if (page.connectionId !== q.connectionId || page.table !== q.table)
        issues.push({ path: at('pageId'), code: 'page-table', message: "The page is about another table; a widget of it asks the page's table." });
      else {
        const all = new Set(table.columns.map((c) => c.name));
        try {
          filters.push(...parseListParams(pageFilters(page), { table, readable: all }).filters);
        } catch (err) {
          if (!(err instanceof RowInputError)) throw err;
          issues.push({ path: at('pageId'), code: 'page-filters', message: "The page's filters no longer fit its table: " + err.message });
        }
      }
    }
  }

  if (issues.length) return { ok: false, error: invalid(issues) };
  return {
    ok: true,
    plan: {
      connectionId: q.connectionId,
      dialect,
      table,
      metric: { op: q.metric.op, column: metricColumn },
      groupBy,
      bucket,
      filters,
      bucketRange,
    },
  };
}

const NUMERICISH = new Set<EffectiveColumn['type']>(['integer', 'float']);

/** The pages plugin's WidgetQueryCheck: every refusal as issues under `path` (a 404 becomes an issue at the field that named it). */
export async function widgetQueryIssues(kernel: Kernel, principal: Principal, raw: unknown, path: string): Promise<ErrorIssue[]> {
  const checked = await checkQuery(kernel, principal, raw, path);
  if (checked.ok) return [];
  const e = checked.error;
  if (e.issues?.length) return e.issues;
  const q = raw as { pageId?: unknown };
  if (e.message === 'No such connection.') return [{ path: `${path}.connectionId`, code: 'unknown-connection', message: e.message }];
  if (e.message === 'No such page.' && q?.pageId !== undefined) return [{ path: `${path}.pageId`, code: 'unknown-page', message: e.message }];
  return [{ path: `${path}.table`, code: 'unknown-table', message: e.message }];
}
