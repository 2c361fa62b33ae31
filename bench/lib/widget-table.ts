/**
 * The widget benches' table and widgets (bench/widgets.ts, bench/dashboard-paint.ts): a PostgreSQL
 * table `widget_events` seeded once into the database `bench_widgets` and kept between runs (a
 * comment on the table records what was seeded; another row count seeds it again, BENCH_DROP=1
 * drops the database first), and the 8 widgets of issue 28's measured dashboard.
 */
import pg from 'pg';
import { PG_ADMIN_URL } from '../../test/helpers/databases.js';

export const WIDGET_DATABASE = 'bench_widgets';
export const WIDGET_TABLE = 'widget_events';
/** Bump when the seed below changes: a kept table with another mark is seeded again. */
const SEED_VERSION = 1;

function databaseUrl(): string {
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${WIDGET_DATABASE}`;
  return u.toString();
}

/**
 * `widget_events` of `rows` rows: one every 63 s from 2024-01-01 UTC (1,000,000 rows span ~2
 * years), 50,000 customers, 40 categories, 5 statuses, amounts 0–999.99; an index on created_at.
 * Answers the database's URL.
 */
export async function ensureWidgetTable(rows: number): Promise<string> {
  const url = databaseUrl();
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    if (process.env.BENCH_DROP === '1') await admin.query(`drop database if exists "${WIDGET_DATABASE}" with (force)`);
    const exists = await admin.query('select 1 from pg_database where datname = $1', [WIDGET_DATABASE]);
    if (exists.rowCount === 0) await admin.query(`create database "${WIDGET_DATABASE}"`);
  } finally {
    await admin.end();
  }
  const mark = `rows=${rows} seed=${SEED_VERSION}`;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const kept = await c.query<{ mark: string | null }>(`select obj_description(to_regclass($1), 'pg_class') as mark`, [WIDGET_TABLE]);
    if (kept.rows[0]?.mark === mark) {
      console.log(`table ${WIDGET_DATABASE}.${WIDGET_TABLE}: kept from an earlier run (${mark}); BENCH_DROP=1 seeds it again`);
      return url;
    }
    const started = Date.now();
    await c.query(`drop table if exists ${WIDGET_TABLE}`);
    await c.query(
      `create table ${WIDGET_TABLE} (id bigserial primary key, created_at timestamptz not null, customer_id integer not null, category text not null, status text not null, amount numeric(12,2) not null)`,
    );
    await c.query(
      `insert into ${WIDGET_TABLE} (created_at, customer_id, category, status, amount)
       select timestamptz '2024-01-01 00:00:00+00' + g * interval '63 seconds', (g::bigint * 7919) % 50000, 'cat-' || lpad(((g * 31) % 40)::text, 2, '0'),
              (array['new','paid','shipped','returned','cancelled'])[g % 5 + 1], ((g * 37) % 100000) / 100.0
       from generate_series(1, $1) g`,
      [rows],
    );
    await c.query(`create index ${WIDGET_TABLE}_created_at on ${WIDGET_TABLE} (created_at)`);
    await c.query(`vacuum analyze ${WIDGET_TABLE}`);
    await c.query(`comment on table ${WIDGET_TABLE} is '${mark}'`);
    console.log(`table ${WIDGET_DATABASE}.${WIDGET_TABLE}: seeded ${rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s (kept for the next runs)`);
    return url;
  } finally {
    await c.end();
  }
}

export type WidgetQuery = Record<string, unknown>;

/**
 * The 8 widgets: a count, a sum, an avg, a count_distinct, a groupBy with limit 10, a groupBy
 * with `other`, a day timeBucket in Europe/Berlin over a 3-month range, a month timeBucket.
 * `viz` is how the dashboard draws each one.
 */
export function benchWidgets(connectionId: string): { id: string; query: WidgetQuery; viz: 'number' | 'bar' | 'line' | 'pie' }[] {
  const q = (query: WidgetQuery) => ({ connectionId, table: WIDGET_TABLE, ...query });
  return [
    { id: 'count', viz: 'number', query: q({ metric: { op: 'count' } }) },
    { id: 'sum', viz: 'number', query: q({ metric: { op: 'sum', column: 'amount' } }) },
    { id: 'avg', viz: 'number', query: q({ metric: { op: 'avg', column: 'amount' } }) },
    { id: 'count_distinct', viz: 'number', query: q({ metric: { op: 'count_distinct', column: 'customer_id' } }) },
    { id: 'group_top10', viz: 'bar', query: q({ metric: { op: 'sum', column: 'amount' }, groupBy: { column: 'category', limit: 10 } }) },
    { id: 'group_other', viz: 'pie', query: q({ metric: { op: 'count' }, groupBy: { column: 'category', limit: 5, other: true } }) },
    {
      id: 'day_berlin',
      viz: 'line',
      query: q({
        metric: { op: 'count' },
        timeBucket: { column: 'created_at', unit: 'day', timeZone: 'Europe/Berlin' },
        range: { column: 'created_at', from: '2025-01-01T00:00:00Z', to: '2025-04-01T00:00:00Z' },
      }),
    },
    {
      id: 'month',
      viz: 'bar',
      query: q({ metric: { op: 'sum', column: 'amount' }, timeBucket: { column: 'created_at', unit: 'month', timeZone: 'Europe/Berlin' } }),
    },
  ];
}
