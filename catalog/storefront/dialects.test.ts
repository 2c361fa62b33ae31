import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { installFromCatalog } from '../testing.js';

const ORIGIN = 'https://shop.example';
const available = { postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql') };

/** The decimal price and the booleans (`active` as a default filter, `read` in ctx.db's where) on each server dialect. */
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(available[dialect])(`storefront on a ${dialect} connection`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let source: SourceFixture;
    let connectionId: string;
    let appKey: string;

    const pub = async (method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { authorization: `Bearer ${appKey}`, origin: ORIGIN };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${inst.url}/api/v1/public${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, text, body: text ? JSON.parse(text) : null };
    };
    const act = (name: string, input: unknown) => admin.post(`/api/v1/public/apps/storefront/actions/${name}`, { input });

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
      source = await sourceFixture(dialect);
      const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect, url: source.url });
      expect(created.status, created.text).toBe(201);
      connectionId = created.body.data.connection.id;
      ({ appKey } = await installFromCatalog(admin, 'storefront', '1.0.0', connectionId));
    }, 60_000);
    afterAll(async () => {
      await inst?.close();
      await source?.cleanup();
    });

    it('lists active products, takes a message, and lets staff list and mark it', async () => {
      for (const values of [
        { name: 'Blue mug', description: 'Stoneware', price: '12.50', active: true },
        { name: 'Old mug', description: 'Gone', price: '5.00', active: false },
        { name: 'Apron', description: 'Goes with the mug', price: '24.90' },
      ]) {
        const res = await admin.post(`/api/v1/data/${connectionId}/storefront__products`, { values });
        expect(res.status, res.text).toBe(201);
      }
      const list = await pub('GET', '/records/storefront-products?search=MUG&sort=-price');
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.map((p: { name: string; price: unknown }) => [p.name, Number(p.price)])).toEqual([
        ['Apron', 24.9],
        ['Blue mug', 12.5],
      ]);

      const sent = await pub('POST', '/records/storefront-contact', { values: { name: 'Ada', email: 'ada@example.com', message: 'Hello' } });
      expect(sent.status, sent.text).toBe(201);
      const unread = await act('listMessages', { unread: true });
      expect(unread.status, unread.text).toBe(200);
      const [message] = unread.body.data.result.messages;
      expect(message).toMatchObject({ name: 'Ada', email: 'ada@example.com', message: 'Hello', read: false });
      expect((await act('markRead', { id: message.id })).body.data.result).toMatchObject({ read: true });
      expect((await act('listMessages', { unread: true })).body.data.result.messages).toEqual([]);
      expect((await pub('POST', '/apps/storefront/actions/listMessages', { input: {} })).status).toBe(403);

      // An order request and a product image on this dialect (a decimal total, a binary column).
      const mug = list.body.data.find((p: { name: string }) => p.name === 'Blue mug').id;
      const order = await pub('POST', '/records/storefront-orders', {
        values: { name: 'Ada', email: 'ada@example.com', items: [{ product_id: mug, quantity: 2 }] },
      });
      expect(order.status, order.text).toBe(201);
      expect(order.body.data).toMatchObject({ total: '25.00', currency: 'EUR' });
      const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
      const image = await act('setImage', { productId: mug, contentType: 'image/png', data: png });
      expect(image.status, image.text).toBe(200);
      const images = await pub('GET', `/records/storefront-images?filter[product_id][in]=${mug}`);
      expect(images.body.data).toEqual([expect.objectContaining({ product_id: mug, content_type: 'image/png', data: { $binary: png } })]);

      const removed = await admin.delete('/api/v1/add-ons/storefront?dropData=true');
      expect(removed.status, removed.text).toBe(200);
      expect([...removed.body.data.droppedTables].sort()).toEqual([
        'storefront__contact_messages',
        'storefront__orders',
        'storefront__product_images',
        'storefront__products',
      ]);
    });
  });
