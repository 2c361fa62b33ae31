import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { issuePaths } from '../../test/helpers/identity.js';
import { definePlugin } from '../../kernel/api.js';
import { availableDialects, dataEnv, type DataEnv } from '../data/testing.js';
import { pagesRef, type PagesProvides } from '../pages/provides.js';

/** A plugin loaded after widget-data that keeps the pages plugin's face, to see the check widget-data registered there. */
let seenPages: PagesProvides | null = null;
const probe = definePlugin({
  name: 'widget-data-probe',
  version: '1.0.0',
  requires: ['pages', 'widget-data'],
  setup: (kernel) => {
    seenPages = kernel.plugin(pagesRef);
    return {};
  },
});

const dialects = await availableDialects();

const OVERRIDES = {
  tables: [
    {
      table: 'user',
      columns: [
        { column: 'email', personal: true },
        { column: 'api_token', secret: true },
      ],
    },
  ],
};

const STATUSES = ['draft', 'active', 'archived'] as const;
const PRODUCTS = Array.from({ length: 30 }, (_, i) => ({
  sku: `SKU-${String(i).padStart(4, '0')}`,
  name: `Item ${i % 7}`,
  price: `${(i % 6) * 10 + 5}.25`,
  stock: i % 5,
  status: STATUSES[i % 3]!,
}));

/** Events every 47 minutes across both DST changes of 2024 in Europe/Berlin and America/New_York (UTC wall times). */
function eventTimes(): string[] {
  const out: string[] = [];
  for (const [from, to] of [
    ['2024-03-08T00:00:00Z', '2024-04-02T00:00:00Z'],
    ['2024-10-25T00:00:00Z', '2024-11-05T00:00:00Z'],
  ] as const) {
    for (let t = Date.parse(from); t < Date.parse(to); t += 47 * 60_000) out.push(new Date(t).toISOString().slice(0, 19).replace('T', ' '));
  }
  return out;
}
const EVENTS = eventTimes();

/** The local wall-clock start of the bucket holding `instant` in `zone`, computed here, independently of the server. */
function localBucket(instant: number, zone: string, unit: 'hour' | 'day' | 'week' | 'month'): string {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit' });
  const p = Object.fromEntries(f.formatToParts(new Date(instant)).map((x) => [x.type, x.value]));
  if (unit === 'hour') return `${p.year}-${p.month}-${p.day} ${p.hour}:00:00`;
  if (unit === 'month') return `${p.year}-${p.month}-01 00:00:00`;
  if (unit === 'day') return `${p.year}-${p.month}-${p.day} 00:00:00`;
  const d = new Date(Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day)));
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return `${d.toISOString().slice(0, 10)} 00:00:00`;
}

function expectedSeries(zone: string, unit: 'hour' | 'day' | 'week' | 'month'): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of EVENTS) {
    const k = localBucket(Date.parse(`${e.replace(' ', 'T')}Z`), zone, unit);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

describe.each(dialects)('widget data on %s', (dialect) => {
  let env: DataEnv;
  let narrow: HttpClient;
  let noData: HttpClient;
  let zoneTables = true;

  const role = async (name: string, grants: unknown[]) => {
    const created = await env.req(env.admin, 'POST', '/api/v1/roles', { name });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.role.id as string;
    const set = await env.req(env.admin, 'PUT', `/api/v1/roles/${id}/permissions`, { grants });
    expect(set.status, set.text).toBe(200);
    return id;
  };
  const q = (extra: Record<string, unknown>, table = 'product') => ({ connectionId: env.connectionId, table, ...extra });
  const ask = (client: HttpClient, query: unknown) => env.req(client, 'POST', '/api/v1/widget-data/query', { query });
  const rows = async <T = Record<string, unknown>>(statement: ReturnType<typeof sql>) => (await statement.execute(env.db)).rows as T[];

  beforeAll(async () => {
    // The PostgreSQL source runs on a PostgreSQL meta store, the others on SQLite.
    env = await dataEnv(dialect, dialect === 'postgres' ? { meta: 'postgres', plugins: [probe] } : { plugins: [probe] });
    const put = await env.req(env.admin, 'PUT', `/api/v1/connections/${env.connectionId}/schema/overrides`, OVERRIDES);
    expect(put.status, put.text).toBe(200);
    await env.seed('product', PRODUCTS);
    await env.seed('user', [
      { email: 'ann@example.com', 'first name': 'Ann', api_token: '11111111-2222-3333-4444-555555555555' },
      { email: 'bob@example.com', 'first name': 'Bob', api_token: '11111111-2222-3333-4444-555555555556' },
    ]);
    for (let i = 0; i < EVENTS.length; i += 200)
      await env.db
        .insertInto('audit_event')
        .values(EVENTS.slice(i, i + 200).map((at, j) => ({ sequence_no: i + j + 1, action: (i + j) % 4 ? 'save' : 'delete', payload: '{}', happened_at: at })))
        .execute();
    const c = env.connectionId;
    narrow = await env.user('narrow@example.com', [
      await role('Narrow', [
        { permission: 'data.read', scope: { connectionId: c, table: 'product', columns: ['status', 'stock'] } },
        { permission: 'data.read', scope: { connectionId: c, table: 'user', columns: ['id', 'email'] } },
      ]),
    ]);
    noData = await env.user('nodata@example.com', [await role('Pages only', [{ permission: 'pages.read' }])]);
    if (dialect === 'mysql') {
      const [r] = await rows<{ z: unknown }>(sql`select convert_tz('2000-01-01 00:00:00', '+00:00', 'Europe/Berlin') as z`);
      zoneTables = r!.z !== null;
    }
  }, 120_000);
  afterAll(async () => env?.close());

  it('a value equals the same aggregate run through the driver', async () => {
    const [direct] = await rows<{ a: unknown; s: unknown; n: unknown; mx: unknown }>(
      sql`select avg(stock) as a, sum(price) as s, count(distinct name) as n, max(status) as mx from product where stock >= 1`,
    );
    const filters = { 'filter[stock][gte]': '1' };
    const avg = await ask(env.admin, q({ metric: { op: 'avg', column: 'stock' }, filters }));
    expect(avg.status, avg.text).toBe(200);
    expect(avg.body.data.result.kind).toBe('value');
    expect(avg.body.data.result.value).toBeCloseTo(Number(direct!.a), 9);
    expect(avg.body.data.meta).toMatchObject({ exact: true, elapsedMs: expect.any(Number) });
    const sum = await ask(env.admin, q({ metric: { op: 'sum', column: 'price' }, filters }));
    expect(sum.body.data.result.value).toBeCloseTo(Number(direct!.s), 6);
    const distinct = await ask(env.admin, q({ metric: { op: 'count_distinct', column: 'name' }, filters }));
    expect(distinct.body.data.result.value).toBe(Number(direct!.n));
    const max = await ask(env.admin, q({ metric: { op: 'max', column: 'status' }, filters }));
    expect(max.body.data.result.value).toBe(direct!.mx);
    const count = await ask(env.admin, q({ metric: { op: 'count' } }));
    expect(count.body.data.result).toEqual({ kind: 'value', value: PRODUCTS.length });
  });

  it('is a read: a query leaves no audit entry (decisions K50)', async () => {
    const res = await ask(env.admin, q({ metric: { op: 'count' } }));
    expect(res.status, res.text).toBe(200);
    const trail = await env.req(env.admin, 'GET', '/api/v1/audit?limit=500');
    expect(trail.status, trail.text).toBe(200);
    const actions = (trail.body.data.entries as Array<{ action: string }>).map((e) => e.action);
    expect(actions.filter((a) => a.includes('widget-data'))).toEqual([]);
  });

  it('groups equal GROUP BY through the driver, the largest first, with the rest as other', async () => {
    const direct = await rows<{ k: string; v: unknown }>(sql`select status as k, sum(stock) as v from product group by status`);
    const res = await ask(env.admin, q({ metric: { op: 'sum', column: 'stock' }, groupBy: { column: 'status' } }));
    expect(res.status, res.text).toBe(200);
    const byKey = Object.fromEntries(direct.map((r) => [r.k, Number(r.v)]));
    expect(res.body.data.result.kind).toBe('groups');
    expect(Object.fromEntries(res.body.data.result.groups.map((g: { key: string; value: number }) => [g.key, g.value]))).toEqual(byKey);
    const values = res.body.data.result.groups.map((g: { value: number }) => g.value);
    expect(values).toEqual([...values].sort((a: number, b: number) => b - a));
    expect(res.body.data.result.other).toBeUndefined();

    const top = await ask(env.admin, q({ metric: { op: 'count' }, groupBy: { column: 'name', limit: 2, other: true } }));
    expect(top.status, top.text).toBe(200);
    const counts = await rows<{ k: string; v: unknown }>(sql`select name as k, count(*) as v from product group by name`);
    const groups = top.body.data.result.groups as Array<{ key: string; value: number }>;
    expect(groups).toHaveLength(2);
    for (const g of groups) expect(g.value).toBe(Number(counts.find((c) => c.k === g.key)!.v));
    expect(top.body.data.result.other).toBe(PRODUCTS.length - groups[0]!.value - groups[1]!.value);
  });

  const zones = ['Europe/Berlin', 'America/New_York'] as const;
  for (const zone of zones)
    for (const unit of ['hour', 'day', 'week', 'month'] as const)
      it(`buckets by ${unit} in ${zone} across both DST changes`, async () => {
        const res = await ask(env.admin, q({ metric: { op: 'count' }, timeBucket: { column: 'happened_at', unit, timeZone: zone } }, 'audit_event'));
        if (dialect === 'mysql' && !zoneTables) {
          // The server has no time zone tables: a named zone is refused, never answered wrong.
          expect(res.status, res.text).toBe(400);
          expect(res.body.error.issues).toEqual([expect.objectContaining({ path: 'body.query.timeBucket.timeZone', code: 'timezone-unsupported' })]);
          return;
        }
        expect(res.status, res.text).toBe(200);
        const points = res.body.data.result.points as Array<{ t: number; value: number }>;
        // Each point's start is its bucket's local start in the zone; the counts are those computed here.
        const got = new Map(points.map((p) => [localBucket(p.t, zone, unit), p.value]));
        expect(got).toEqual(expectedSeries(zone, unit));
        expect(points.map((p) => p.t)).toEqual([...points.map((p) => p.t)].sort((a, b) => a - b));
        if (unit !== 'hour') for (const p of points) expect(localBucket(p.t, zone, 'hour').endsWith(' 00:00:00')).toBe(true);
        if (dialect === 'postgres' && unit !== 'hour') {
          const direct = await rows<{ t: unknown; v: unknown }>(
            sql`select extract(epoch from (date_trunc(${unit}, (happened_at at time zone 'UTC') at time zone ${zone}) at time zone ${zone})) * 1000 as t, count(*) as v from audit_event group by 1 order by 1`,
          );
          expect(points).toEqual(direct.map((r) => ({ t: Number(r.t), value: Number(r.v) })));
        }
        if (dialect === 'mysql') {
          const direct = await rows<{ k: string; v: unknown }>(
            sql`select date_format(convert_tz(happened_at, '+00:00', ${zone}), '%Y-%m-%d %H:00:00') as k, count(*) as v from audit_event group by 1 order by 1`,
          );
          if (unit === 'hour') expect(new Map(direct.map((r) => [r.k, Number(r.v)]))).toEqual(got);
        }
      });

  it('a fixed offset buckets as the database does it directly', async () => {
    const res = await ask(env.admin, q({ metric: { op: 'count' }, timeBucket: { column: 'happened_at', unit: 'day', timeZone: '+05:30' } }, 'audit_event'));
    expect(res.status, res.text).toBe(200);
    const direct =
      dialect === 'postgres'
        ? await rows<{ k: string; v: unknown }>(
            sql`select to_char(date_trunc('day', (happened_at at time zone 'UTC') at time zone interval '+05:30'), 'YYYY-MM-DD') as k, count(*) as v from audit_event group by 1 order by 1`,
          )
        : dialect === 'mysql'
          ? await rows<{ k: string; v: unknown }>(
              sql`select date_format(convert_tz(happened_at, '+00:00', '+05:30'), '%Y-%m-%d') as k, count(*) as v from audit_event group by 1 order by 1`,
            )
          : await rows<{ k: string; v: unknown }>(
              sql`select strftime('%Y-%m-%d', happened_at, '+330 minutes') as k, count(*) as v from audit_event group by 1 order by 1`,
            );
    const expected = direct.map((r) => ({ t: Date.parse(`${r.k}T00:00:00+05:30`), value: Number(r.v) }));
    expect(res.body.data.result.points).toEqual(expected);
  });

  it('applies the range and filters in the database', async () => {
    const res = await ask(
      env.admin,
      q(
        {
          metric: { op: 'count' },
          groupBy: { column: 'action' },
          range: { column: 'happened_at', from: '2024-10-27T00:00:00Z', to: '2024-10-28T00:00:00Z' },
          filters: { 'filter[action][ne]': 'nothing' },
        },
        'audit_event',
      ),
    );
    expect(res.status, res.text).toBe(200);
    const direct = await rows<{ k: string; v: unknown }>(
      sql`select action as k, count(*) as v from audit_event where happened_at >= '2024-10-27 00:00:00' and happened_at < '2024-10-28 00:00:00' group by action`,
    );
    expect(Object.fromEntries(res.body.data.result.groups.map((g: { key: string; value: number }) => [g.key, g.value]))).toEqual(
      Object.fromEntries(direct.map((r) => [r.k, Number(r.v)])),
    );
  });

  it('refuses sum on text, an unknown zone, too many groups and a secret column', async () => {
    const text = await ask(env.admin, q({ metric: { op: 'sum', column: 'name' } }));
    expect(text.status).toBe(400);
    expect(text.body.error.issues).toEqual([expect.objectContaining({ path: 'body.query.metric.column', code: 'op-type' })]);
    const zone = await ask(
      env.admin,
      q({ metric: { op: 'count' }, timeBucket: { column: 'happened_at', unit: 'day', timeZone: 'Mars/Olympus' } }, 'audit_event'),
    );
    expect(zone.body.error.issues).toEqual([expect.objectContaining({ path: 'body.query.timeBucket.timeZone', code: 'timezone-invalid' })]);
    const limit = await ask(env.admin, q({ metric: { op: 'count' }, groupBy: { column: 'status', limit: 51 } }));
    expect(limit.body.error.issues).toEqual([expect.objectContaining({ path: 'body.query.groupBy.limit', code: 'limit' })]);
    // Even an admin cannot aggregate a secret column: it is unknown, as for anyone who cannot read it.
    const secret = await ask(env.admin, q({ metric: { op: 'count_distinct', column: 'api_token' } }, 'user'));
    expect(secret.status).toBe(400);
    expect(secret.body.error.issues).toEqual([expect.objectContaining({ path: 'body.query.metric.column', code: 'unknown-column' })]);
    const secretFilter = await ask(env.admin, q({ metric: { op: 'count' }, filters: { 'filter[api_token][null]': 'false' } }, 'user'));
    expect(secretFilter.body.error.issues).toEqual([expect.objectContaining({ code: 'unknown-column' })]);
    const missing = await ask(env.admin, q({ metric: { op: 'count' } }, 'no_such_table'));
    expect(missing.status).toBe(404);
    const noConnection = await ask(env.admin, { ...q({ metric: { op: 'count' } }), connectionId: '00000000000000000000000000' });
    expect(noConnection.status).toBe(404);
  });

  it('a viewer with a scoped grant gets unknown-column for the columns outside it, and 404 for other tables', async () => {
    const ok = await ask(narrow, q({ metric: { op: 'sum', column: 'stock' }, groupBy: { column: 'status' } }));
    expect(ok.status, ok.text).toBe(200);
    for (const query of [
      q({ metric: { op: 'sum', column: 'price' } }),
      q({ metric: { op: 'count' }, groupBy: { column: 'name' } }),
      q({ metric: { op: 'count' }, filters: { 'filter[name][eq]': 'Item 1' } }),
    ]) {
      const res = await ask(narrow, query);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.issues.map((i: { code: string }) => i.code)).toEqual(['unknown-column']);
    }
    // email is personal: its column grant does not reach it (DA2); a whole-table grant (the admin's) does.
    const personal = await ask(narrow, q({ metric: { op: 'count_distinct', column: 'email' } }, 'user'));
    expect(issuePaths(personal)).toEqual(['body.query.metric.column']);
    expect((await ask(env.admin, q({ metric: { op: 'count_distinct', column: 'email' } }, 'user'))).body.data.result.value).toBe(2);
    expect((await ask(narrow, q({ metric: { op: 'count' } }, 'category'))).status).toBe(404);
    const forbidden = await ask(noData, q({ metric: { op: 'count' } }));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'data.read' } });
  });

  it('registers its check with the pages plugin (PATCH /pages/{pageId}/layout checks widgets with it)', () => {
    expect(typeof (seenPages as unknown as { widgetQueryCheck: unknown }).widgetQueryCheck).toBe('function');
  });

  it("a page's filters apply and cannot be removed; a page the caller cannot see is 404", async () => {
    const created = await env.req(env.admin, 'POST', '/api/v1/pages', {
      title: 'Active products',
      kind: 'list',
      connectionId: env.connectionId,
      table: 'product',
      config: { filters: [{ column: 'status', op: 'eq', value: 'active' }] },
      visibleTo: { roles: ['admin'] },
    });
    expect(created.status, created.text).toBe(201);
    const page = created.body.data.page as { id: string };
    const active = PRODUCTS.filter((p) => p.status === 'active').length;
    const onPage = await ask(env.admin, q({ metric: { op: 'count' }, pageId: page.id }));
    expect(onPage.status, onPage.text).toBe(200);
    expect(onPage.body.data.result.value).toBe(active);
    // The caller's filters come on top of the page's: asking for drafts on a page of active products finds none.
    const drafts = await ask(env.admin, q({ metric: { op: 'count' }, pageId: page.id, filters: { 'filter[status][eq]': 'draft' } }));
    expect(drafts.body.data.result.value).toBe(0);
    const other = await ask(env.admin, q({ metric: { op: 'count' }, pageId: page.id }, 'user'));
    expect(other.body.error.issues).toEqual([expect.objectContaining({ path: 'body.query.pageId', code: 'page-table' })]);
    expect((await ask(narrow, q({ metric: { op: 'count' }, pageId: page.id }))).status).toBe(404);
    expect((await ask(env.admin, q({ metric: { op: 'count' }, pageId: 'no-such-page' }))).status).toBe(404);
  });

  it('a batch answers each query on its own: one failure does not fail the others', async () => {
    const res = await env.req(env.admin, 'POST', '/api/v1/widget-data/batch', {
      queries: [
        { id: 'count', query: q({ metric: { op: 'count' } }) },
        { id: 'bad', query: q({ metric: { op: 'sum', column: 'name' } }) },
        { id: 'shape', query: { table: 'product' } },
        { id: 'gone', query: q({ metric: { op: 'count' } }, 'no_such_table') },
        ...Array.from({ length: 6 }, (_, i) => ({ id: `g${i}`, query: q({ metric: { op: 'max', column: 'stock' }, groupBy: { column: 'status' } }) })),
      ],
    });
    expect(res.status, res.text).toBe(200);
    const results = res.body.data.results;
    expect(results.map((r: { id: string }) => r.id)).toEqual(['count', 'bad', 'shape', 'gone', 'g0', 'g1', 'g2', 'g3', 'g4', 'g5']);
    expect(results[0]).toMatchObject({ ok: true, result: { kind: 'value', value: PRODUCTS.length } });
    expect(results[1]).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION_FAILED', issues: [{ path: 'body.queries.1.query.metric.column', code: 'op-type' }] },
    });
    expect(results[2]).toMatchObject({ ok: false, error: { code: 'VALIDATION_FAILED' } });
    expect(results[3]).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    for (const r of results.slice(4)) expect(r).toMatchObject({ ok: true, result: { kind: 'groups' } });
    const tooMany = await env.req(env.admin, 'POST', '/api/v1/widget-data/batch', {
      queries: Array.from({ length: 21 }, (_, i) => ({ id: `q${i}`, query: q({ metric: { op: 'count' } }) })),
    });
    expect(tooMany.status).toBe(400);
  });

  it('a statement kept by its plan (WD8) answers for that plan only: other filter values and another metric each get their own', async () => {
    const fresh = (query: unknown) => env.req(env.admin, 'POST', '/api/v1/widget-data/query', { query, fresh: true });
    // (Filters on name: the result cache's test below counts on its status filters not being asked before it.)
    for (const name of ['Item 1', 'Item 2', 'Item 1', 'Item 5', 'Item 2']) {
      for (const op of ['sum', 'max'] as const) {
        const res = await fresh(q({ metric: { op, column: 'stock' }, filters: { 'filter[name][eq]': name } }));
        expect(res.status, res.text).toBe(200);
        const stocks = PRODUCTS.filter((p) => p.name === name).map((p) => p.stock);
        expect(Number(res.body.data.result.value), `${op} of ${name}`).toBe(op === 'sum' ? stocks.reduce((a, b) => a + b, 0) : Math.max(...stocks));
      }
    }
  });

  it('answers the same statement again from the result of moments ago, for any caller it is the same statement for; an API write forgets it (WD6)', async () => {
    const query = q({ metric: { op: 'sum', column: 'stock' }, filters: { 'filter[status][eq]': 'draft' } });
    const first = await ask(env.admin, query);
    expect(first.status, first.text).toBe(200);
    const again = await ask(env.admin, query);
    expect(again.body.data.result).toEqual(first.body.data.result);
    expect(again.body.data.meta).toMatchObject({ cached: true, computedAt: first.body.data.meta.computedAt });
    // The narrow role reads status and stock: the very same statement, the same result.
    expect((await ask(narrow, query)).body.data.meta.cached).toBe(true);
    // Another filter is another statement.
    const other = await ask(env.admin, q({ metric: { op: 'sum', column: 'stock' }, filters: { 'filter[status][eq]': 'active' } }));
    expect(other.body.data.meta.cached).toBe(false);
    // `fresh` (the dashboard's Refresh) asks the database again.
    const refreshed = await env.req(env.admin, 'POST', '/api/v1/widget-data/query', { query, fresh: true });
    expect(refreshed.body.data.meta.cached).toBe(false);
    expect(refreshed.body.data.result).toEqual(first.body.data.result);
    // A row written outside the API waits for the result to age (10 s); one written through the data API is seen at once.
    const created = await env.req(env.admin, 'POST', `/api/v1/data/${env.connectionId}/product`, {
      values: { sku: 'SKU-9999', name: 'Cached', price: '1.25', stock: 4, status: 'draft' },
    });
    expect(created.status, created.text).toBe(201);
    const after = await ask(env.admin, query);
    expect(after.body.data.meta.cached).toBe(false);
    expect(after.body.data.result.value).toBe(Number(first.body.data.result.value) + 4);
    expect((await env.req(env.admin, 'POST', `/api/v1/data/undo/${created.body.data.undoToken}`)).status).toBe(200);
    expect((await ask(env.admin, query)).body.data.result).toEqual(first.body.data.result);
  });
});
