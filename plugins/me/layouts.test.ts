import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { meDb } from './tables.js';
import { addUser, setupAdmin } from '../../test/helpers/identity.js';

const pg = await databaseAvailable('postgres');

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pg)(`my saved page layouts (${meta} meta store)`, () => {
    let inst: TestInstance;
    let a: { client: HttpClient; userId: string };
    let b: { client: HttpClient; userId: string };
    const stored = (userId: string) =>
      meDb(inst.app.kernel.db).selectFrom('user_layouts').selectAll().where('user_id', '=', userId).orderBy('page_id').execute();

    /** Page ids by name: a layout is only of a page the caller sees (ME6). */
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      inst = await startInstance({ meta });
      a = await setupAdmin(inst);
      b = await addUser(inst, { role: 'viewer', email: 'b@example.com' });
      for (const name of ['customers', 'orders', 'big', 'hidden']) {
        const res = await call(inst, a.client, 'POST', '/api/v1/pages', {
          title: name,
          kind: 'dashboard',
          ...(name === 'hidden' ? { visibleTo: { roles: ['editor'] } } : {}),
        });
        expect(res.status, res.text).toBe(201);
        ids[name] = res.body.data.page.id;
      }
    });
    afterAll(async () => {
      await inst?.close();
    });

    it('store the layout as given and answer it', async () => {
      const layout = { columns: ['name', 'email'], widths: { name: 240 }, sort: [{ column: 'name', desc: false }], nested: { deep: [1, null, 'x'] } };
      const res = await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.customers}/layout`, { layout });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ pageId: ids.customers, layout, updatedAt: expect.any(Number) });
      const rows = await stored(a.userId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ page_id: ids.customers });
      expect(JSON.parse(rows[0]!.layout)).toEqual(layout);
    });

    it('replace on a second PUT, per user and page', async () => {
      await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.orders}/layout`, { layout: { v: 1 } });
      const res = await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.customers}/layout`, { layout: { columns: ['email'] } });
      expect(res.body.data.layout).toEqual({ columns: ['email'] });
      await call(inst, b.client, 'PUT', `/api/v1/me/views/${ids.customers}/layout`, { layout: { mine: true } });
      const rows = await stored(a.userId);
      expect(rows.map((r) => [r.page_id, JSON.parse(r.layout)])).toEqual(
        [
          [ids.customers, { columns: ['email'] }],
          [ids.orders, { v: 1 }],
        ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      );
      expect((await stored(b.userId)).map((r) => JSON.parse(r.layout))).toEqual([{ mine: true }]);
    });

    it('remove on DELETE, only the caller’s, and answer ok when there was none', async () => {
      const res = await call(inst, a.client, 'DELETE', `/api/v1/me/views/${ids.customers}/layout`);
      expect(res.body).toEqual({ data: { ok: true } });
      expect((await stored(a.userId)).map((r) => r.page_id)).toEqual([ids.orders]);
      expect(await stored(b.userId)).toHaveLength(1);
      expect((await call(inst, a.client, 'DELETE', `/api/v1/me/views/${ids.customers}/layout`)).body).toEqual({ data: { ok: true } });
      const entries = await inst.app.kernel.db.selectFrom('audit_log').select(['action', 'target_id']).where('action', 'like', 'me.layout.%').execute();
      expect(entries).toContainEqual({ action: 'me.layout.delete', target_id: ids.customers });
    });

    it('read the caller’s own layout back in GET /pages/{pageId} as myLayout, null when none is saved (ME7)', async () => {
      await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.orders}/layout`, { layout: { widgets: [{ id: 'w1' }] } });
      const mine = await call(inst, a.client, 'GET', `/api/v1/pages/${ids.orders}`);
      expect(mine.status, mine.text).toBe(200);
      expect(mine.body.data.myLayout).toEqual({ layout: { widgets: [{ id: 'w1' }] }, updatedAt: expect.any(Number) });
      const none = await call(inst, b.client, 'GET', `/api/v1/pages/${ids.orders}`);
      expect(none.status, none.text).toBe(200);
      expect(none.body.data.myLayout).toBeNull();
    });

    it('answer 404 for a page that does not exist or the caller cannot see (ME6)', async () => {
      expect((await call(inst, a.client, 'PUT', '/api/v1/me/views/customers/layout', { layout: {} })).status).toBe(404);
      expect((await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.hidden}/layout`, { layout: {} })).status).toBe(200);
      const hidden = await call(inst, b.client, 'PUT', `/api/v1/me/views/${ids.hidden}/layout`, { layout: {} });
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe('NOT_FOUND');
    });

    it('hold pageId to 1..64 characters and the body to a layout object', async () => {
      expect((await call(inst, a.client, 'PUT', `/api/v1/me/views/${'p'.repeat(64)}/layout`, { layout: {} })).status).toBe(404);
      const long = await call(inst, a.client, 'PUT', `/api/v1/me/views/${'p'.repeat(65)}/layout`, { layout: {} });
      expect(long.status).toBe(400);
      expect(long.body.error.issues[0].path).toBe('params.pageId');
      expect((await call(inst, a.client, 'DELETE', `/api/v1/me/views/${'p'.repeat(65)}/layout`)).status).toBe(400);
      for (const [body, path] of [
        [{ layout: [1, 2] }, 'body.layout'],
        [{ layout: 'x' }, 'body.layout'],
        [{ layout: null }, 'body.layout'],
        [{}, 'body.layout'],
        [{ layout: {}, extra: 1 }, 'body'],
      ] as const) {
        const res = await call(inst, a.client, 'PUT', '/api/v1/me/views/p/layout', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.issues[0].path).toBe(path);
      }
    });

    it('hold a list page’s grid columns (`grid`) to their shape and bounds, per user (ME9)', async () => {
      const grid = { order: ['name', 'id'], hidden: ['email'], widths: { name: 320 }, freezeKey: false };
      const res = await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.orders}/layout`, { layout: { widgets: [], grid } });
      expect(res.status, res.text).toBe(200);
      expect((await call(inst, a.client, 'GET', `/api/v1/pages/${ids.orders}`)).body.data.myLayout.layout.grid).toEqual(grid);
      // Another user's layout of the same page is their own.
      expect((await call(inst, b.client, 'GET', `/api/v1/pages/${ids.orders}`)).body.data.myLayout).toBeNull();
      for (const [bad, path] of [
        [{ ...grid, widths: { name: 5000 } }, 'body.layout.grid.widths.name'],
        [{ ...grid, widths: { name: 12.5 } }, 'body.layout.grid.widths.name'],
        [{ ...grid, order: 'name' }, 'body.layout.grid.order'],
        [{ ...grid, hidden: [''] }, 'body.layout.grid.hidden.0'],
        [{ ...grid, colour: 'red' }, 'body.layout.grid'],
        [{ order: [], hidden: [], widths: {} }, 'body.layout.grid.freezeKey'],
        [{ ...grid, order: Array.from({ length: 501 }, (_, i) => `c${i}`) }, 'body.layout.grid.order'],
      ] as const) {
        const refused = await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.orders}/layout`, { layout: { grid: bad } });
        expect(refused.status, JSON.stringify(bad)).toBe(400);
        expect(refused.body.error.code).toBe('VALIDATION_FAILED');
        expect(refused.body.error.issues[0].path).toBe(path);
      }
      expect(JSON.parse((await stored(a.userId)).find((r) => r.page_id === ids.orders)!.layout).grid).toEqual(grid);
    });

    it('refuse a body over 64 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
      const fits = { layout: { blob: 'x'.repeat(64 * 1024 - 40) } };
      expect(JSON.stringify(fits).length).toBeLessThanOrEqual(64 * 1024);
      expect((await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.big}/layout`, fits)).status).toBe(200);
      const res = await call(inst, a.client, 'PUT', `/api/v1/me/views/${ids.big}/layout`, { layout: { blob: 'x'.repeat(64 * 1024) } });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(JSON.parse((await stored(a.userId)).find((r) => r.page_id === ids.big)!.layout).blob).toHaveLength(64 * 1024 - 40);
    });
  });
}
