import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDialects, dataEnv, type DataEnv } from '../data/testing.js';
import { variantKey } from '../../engine/sources/index.js';
import { connectionsRef } from '../connections/provides.js';
import type { ConnectionsService } from '../connections/service.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { createWidgetDataPlugin } from './manifest.js';

const dialects = await availableDialects();
/**
 * Short deadlines for the test (the server's are 10 s a widget, 15 s a batch): a slow widget
 * keeps a core busy until its deadline, so each second here is a second of CI.
 */
const WIDGET_MS = 2000;

describe.each(dialects)('widget deadlines on %s', (dialect) => {
  let env: DataEnv;
  let connections: ConnectionsService;

  beforeAll(async () => {
    env = await dataEnv(dialect, {
      replacePlugins: [createWidgetDataPlugin({ widgetTimeoutMs: WIDGET_MS, batchTimeoutMs: 2 * WIDGET_MS })],
      plugins: [
        definePlugin({
          name: 'pool-probe',
          version: '1.0.0',
          description: "Reads the connections plugin's pools (test).",
          requires: ['connections'],
          setup: (kernel) => void (connections = kernel.plugin(connectionsRef) as ConnectionsService),
        }),
      ],
    });
    // A view whose rows take far longer than any deadline to count.
    // (A cross product: MariaDB stops a recursion at 1,000 turns.)
    await sql`create view slow_numbers as with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000) select a.i from n a, n b, n c, n d`.execute(
      env.db,
    );
    const introspected = await env.req(env.admin, 'POST', `/api/v1/connections/${env.connectionId}/introspect`);
    expect(introspected.status, introspected.text).toBe(200);
  }, 120_000);
  afterAll(async () => env?.close());

  const slow = () => ({ connectionId: env.connectionId, table: 'slow_numbers', metric: { op: 'count' } });

  it('a widget past its deadline answers 504 WIDGET_QUERY_TIMEOUT; the API answers meanwhile', async () => {
    const events: string[] = [];
    const widget = env.req(env.admin, 'POST', '/api/v1/widget-data/query', { query: slow() }).then((r) => (events.push('widget'), r));
    for (let i = 0; i < 3; i++) {
      const h = await env.inst.client().get('/api/v1/healthz');
      expect(h.status).toBe(200);
      events.push('healthz');
    }
    const res = await widget;
    // healthz answered three times while the aggregate was still running (SQLite runs it in the worker thread).
    if (dialect === 'sqlite') expect(events).toEqual(['healthz', 'healthz', 'healthz', 'widget']);
    expect(res.status, res.text).toBe(504);
    expect(res.body.error).toMatchObject({ code: 'WIDGET_QUERY_TIMEOUT', params: { timeoutMs: WIDGET_MS } });
    // The connection serves the next widget.
    const next = await env.req(env.admin, 'POST', '/api/v1/widget-data/query', { query: { ...slow(), table: 'product' } });
    expect(next.status, next.text).toBe(200);
  }, 60_000);

  it('a batch with a widget past its deadline answers the others', async () => {
    const res = await env.req(env.admin, 'POST', '/api/v1/widget-data/batch', {
      queries: [
        { id: 'slow', query: slow() },
        { id: 'fast', query: { ...slow(), table: 'product' } },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.results).toEqual([
      { id: 'slow', ok: false, error: expect.objectContaining({ code: 'WIDGET_QUERY_TIMEOUT', params: { timeoutMs: WIDGET_MS } }) },
      { id: 'fast', ok: true, result: { kind: 'value', value: 0 }, meta: expect.any(Object) },
    ]);
  }, 60_000);

  // PostgreSQL only: the other dialects run widgets on the connection's own pool.
  if (dialect === 'postgres')
    it("runs on read-only sessions that carry the widget's timeout, a pool apart from the connection's own that goes with the connection", async () => {
      // One row only where the session reading it was opened read-only with the widget's limit.
      await sql`create view widget_session as select 1 as one where current_setting('default_transaction_read_only') = 'on' and current_setting('statement_timeout') = '2s'`.execute(
        env.db,
      );
      expect((await env.req(env.admin, 'POST', `/api/v1/connections/${env.connectionId}/introspect`)).status).toBe(200);
      const widget = await env.req(env.admin, 'POST', '/api/v1/widget-data/query', { query: { ...slow(), table: 'widget_session' } });
      expect(widget.status, widget.text).toBe(200);
      expect(widget.body.data.result).toEqual({ kind: 'value', value: 1 });
      // The grid's reads go through the connection's own pool, which is neither.
      const rows = await env.req(env.admin, 'GET', `/api/v1/data/${env.connectionId}/widget_session`);
      expect(rows.status, rows.text).toBe(200);
      expect(rows.body.data.rows).toEqual([]);

      const readPool = variantKey(env.connectionId, `read ${WIDGET_MS}`);
      expect(connections.registry.has(readPool)).toBe(true);
      await connections.registry.close(env.connectionId);
      expect(connections.registry.has(readPool)).toBe(false);
      expect(connections.registry.has(env.connectionId)).toBe(false);
      // Both open again on the next use.
      const again = await env.req(env.admin, 'POST', '/api/v1/widget-data/query', { query: { ...slow(), table: 'widget_session' }, fresh: true });
      expect(again.status, again.text).toBe(200);
      expect(connections.registry.has(readPool)).toBe(true);
      await sql`drop view widget_session`.execute(env.db);
    }, 60_000);

  it("a statement the database refuses is 400 WIDGET_QUERY_REFUSED with the database's reason, never a 500", async () => {
    // The view goes after the introspection: the statement names what the database no longer has.
    await sql`drop view slow_numbers`.execute(env.db);
    const res = await env.req(env.admin, 'POST', '/api/v1/widget-data/query', { query: slow() });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'WIDGET_QUERY_REFUSED', params: { reason: expect.stringMatching(/slow_numbers/) } });
  });
});
