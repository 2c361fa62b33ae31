import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonContext, Json } from '../../addons-sdk/src/index.js';
import { addonsReachingLoopback, sqliteTablesLike } from '../../plugins/add-ons/testing.js';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { TestSmtpServer } from '../../test/helpers/smtp.js';
import { installFromCatalog } from '../testing.js';
import app, { base64Head, cartOf, hmacSha256Hex, imageProblem, sha256, SIGNATURE_HEADER, utf8, webhookBody } from './server.js';

const ORIGIN = 'https://shop.example';
const PRODUCTS = 'storefront-products';
const CONTACT = 'storefront-contact';
const IMAGES = 'storefront-images';
const ORDERS = 'storefront-orders';
/** A 1×1 PNG, as a product image. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A webhook receiver on a loopback port (dual-stack, so `localhost` reaches it whichever address it resolves to). */
interface Receiver {
  url: string;
  posts: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: string }>;
  /** Resolves with the next post, or null after `ms`. */
  next(ms?: number): Promise<Receiver['posts'][number] | null>;
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  const posts: Receiver['posts'] = [];
  const waiting: Array<(p: Receiver['posts'][number]) => void> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const post = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      posts.push(post);
      waiting.splice(0).forEach((w) => w(post));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/hook?token=abc`,
    posts,
    next: (ms = 5000) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(null), ms);
        waiting.push((p) => (clearTimeout(timer), resolve(p)));
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('storefront from the built-in catalog on a fresh instance (SQLite)', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let connectionId: string;
  let appKey: string;
  let hook: Receiver;
  const smtp = new TestSmtpServer();
  const logLines: string[] = [];
  const signingSecret = `whsec-${randomBytes(12).toString('hex')}`;

  const pub = async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${appKey}`, origin: ORIGIN };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${inst.url}/api/v1/public${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };
  const contact = (values: Record<string, unknown>) => pub('POST', `/records/${CONTACT}`, { values });
  const names = (res: { body: { data: Array<{ name: string }> } }) => res.body.data.map((p) => p.name);
  const rows = (sql: string) => {
    const db = new Database(source.database, { readonly: true });
    try {
      return db.prepare(sql).all();
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    hook = await receiver();
    await smtp.start();
    ({ inst, admin } = await bootWithAdmin({
      ...addonsReachingLoopback('fetch'),
      env: { SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_NETWORK_FEATURES: 'true' },
      logLines,
    }));
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    source = await sourceFixture('sqlite');
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(created.status, created.text).toBe(201);
    connectionId = created.body.data.connection.id;
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
    await hook?.close();
    await smtp.stop();
  });

  it('lists storefront in the catalog offline and installs it from there', async () => {
    const catalog = await admin.get('/api/v1/add-ons/catalog');
    expect(catalog.status, catalog.text).toBe(200);
    const keys = catalog.body.data.addons.filter((a: { source: string }) => a.source === 'built-in').map((a: { key: string }) => a.key);
    expect(keys).toEqual(expect.arrayContaining(['storefront', 'table-booking']));
    const entry = catalog.body.data.addons.find((a: { key: string }) => a.key === 'storefront');
    const index = JSON.parse(readFileSync(fileURLToPath(new URL('../dist/index.json', import.meta.url)), 'utf8'));
    const built = index.addons.find((a: { key: string }) => a.key === 'storefront').versions[0];
    expect(entry).toMatchObject({ key: 'storefront', name: 'Storefront', source: 'built-in', installed: null });
    expect(entry.versions[0]).toMatchObject({ version: '1.0.0', sha256: built.sha256, size: built.size, compatible: true });

    const {
      addon,
      plan,
      appKey: key,
    } = await installFromCatalog(admin, 'storefront', '1.0.0', connectionId, {
      shopName: 'Test Shop',
      ordersEmail: 'orders@shop.example',
    });
    appKey = key;
    expect(appKey).toMatch(/^adm_pub_/);
    expect(plan).toMatchObject({
      key: 'storefront',
      to: '1.0.0',
      capabilities: ['db', 'fetch', 'mail.send'],
      outbound: ['connect:webhookUrl'],
      actions: ['shop', 'listMessages', 'markRead', 'listProducts', 'setImage', 'removeImage'],
      staffActions: ['listMessages', 'markRead', 'listProducts', 'setImage', 'removeImage'],
      connect: { kind: 'secret', fields: ['webhookUrl', 'signingSecret'] },
      hooks: ['contact_messages.beforeWrite', 'contact_messages.afterWrite', 'orders.beforeWrite', 'orders.afterWrite'],
    });
    expect(plan.tables.map((t: { name: string; action: string }) => [t.name, t.action])).toEqual([
      ['storefront__products', 'create'],
      ['storefront__contact_messages', 'create'],
      ['storefront__product_images', 'create'],
      ['storefront__orders', 'create'],
    ]);
    expect(plan.endpoints.map((e: { ref: string; methods: string[] }) => [e.ref, e.methods])).toEqual([
      [PRODUCTS, ['GET']],
      [CONTACT, ['POST']],
      [IMAGES, ['GET']],
      [ORDERS, ['POST']],
    ]);
    expect(plan.surfaces.map((s: { name: string; kind: string }) => [s.name, s.kind])).toEqual([
      ['shop', 'public-page'],
      ['messages', 'dashboard-page'],
      ['products', 'dashboard-page'],
    ]);
    expect(addon).toMatchObject({ key: 'storefront', enabled: true, connectionId, settings: { shopName: 'Test Shop', currency: 'EUR' }, connected: false });
    expect(addon.connect.fields).toEqual([
      expect.objectContaining({ name: 'webhookUrl', optional: false }),
      expect.objectContaining({ name: 'signingSecret', optional: true }),
    ]);
    expect(sqliteTablesLike(source.database, 'storefront')).toEqual([
      'storefront__contact_messages',
      'storefront__orders',
      'storefront__product_images',
      'storefront__products',
    ]);
  });

  it('lists only active products with the app key, searchable by name and description, in the order asked', async () => {
    const products = [
      { name: 'Blue mug', description: 'Stoneware, 300 ml', price: '12.50', active: true },
      { name: 'Tea towel', description: 'Linen, goes with the mug', price: '9.00', active: true },
      { name: 'Old mug', description: 'No longer sold', price: '5.00', active: false },
      { name: 'Apron', description: null, price: '24.90', active: true },
    ];
    for (const values of products) {
      const res = await admin.post(`/api/v1/data/${connectionId}/storefront__products`, { values });
      expect(res.status, res.text).toBe(201);
    }
    const all = await pub('GET', `/records/${PRODUCTS}?sort=name`);
    expect(all.status, all.text).toBe(200);
    expect(names(all)).toEqual(['Apron', 'Blue mug', 'Tea towel']);
    expect(all.body.data[1]).toMatchObject({ name: 'Blue mug', description: 'Stoneware, 300 ml', image_url: null });
    expect(Number(all.body.data[1].price)).toBe(12.5);
    expect(all.body.data[1]).not.toHaveProperty('active');

    const mug = await pub('GET', `/records/${PRODUCTS}?search=mug&sort=-price`);
    expect(mug.status, mug.text).toBe(200);
    // "mug" in a name or a description; the inactive "Old mug" never.
    expect(names(mug)).toEqual(['Blue mug', 'Tea towel']);
    expect(names(await pub('GET', `/records/${PRODUCTS}?search=old`))).toEqual([]);

    // The default filter is not the caller's to lift, and the endpoint writes nothing.
    const lifted = await pub('GET', `/records/${PRODUCTS}?filter[active]=false`);
    expect(lifted.status, lifted.text).toBe(400);
    expect(lifted.body.error.code).toBe('PUBLIC_QUERY_REFUSED');
    const write = await pub('POST', `/records/${PRODUCTS}`, { values: { name: 'Free', price: '0' } });
    expect(write.status, write.text).toBe(404);
    expect(write.body.error.code).toBe('PUBLIC_REF_NOT_FOUND');
  });

  it('takes a contact message by POST only, and never reads messages back', async () => {
    const res = await contact({ name: '  Ada   Lovelace ', email: 'ada@example.com', message: 'Do you ship to Paris?' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Ada Lovelace', message: 'Do you ship to Paris?' });
    expect(res.body.data).not.toHaveProperty('email');
    expect(rows('select name, email, message, read from storefront__contact_messages')).toEqual([
      { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Do you ship to Paris?', read: 0 },
    ]);
    // A method the app key does not hold answers as if there were no such endpoint.
    const read = await pub('GET', `/records/${CONTACT}`);
    expect(read.status, read.text).toBe(404);
    expect(read.body.error.code).toBe('PUBLIC_REF_NOT_FOUND');
    expect(read.text).not.toContain('Paris');
    // Not connected: the hook posts nothing.
    expect(hook.posts).toEqual([]);

    const bad = await contact({ name: 'Eve', email: 'not-an-address', message: 'hi' });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error.code).toBe('ADDON_REFUSED');
    expect((await contact({ name: 'Eve', email: 'eve@example.com', message: 'hi', read: true })).status).toBe(400);
  });

  it("lists and marks messages through the staff-only actions; the app key may call only the shop's", async () => {
    const act = (name: string, input: Json) => admin.post(`/api/v1/public/apps/storefront/actions/${name}`, { input });
    const listed = await act('listMessages', { unread: true });
    expect(listed.status, listed.text).toBe(200);
    const [message] = listed.body.data.result.messages;
    expect(message).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com', message: 'Do you ship to Paris?', read: false });
    expect(listed.body.data.result.next).toBeNull();

    const marked = await act('markRead', { id: message.id });
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.data.result).toMatchObject({ id: message.id, read: true });
    expect((await act('listMessages', { unread: true })).body.data.result.messages).toEqual([]);
    expect((await act('listMessages', {})).body.data.result.messages).toHaveLength(1);
    const missing = await act('markRead', { id: 999_999 });
    expect(missing.status, missing.text).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'MESSAGE_NOT_FOUND', message: 'There is no message 999999: it may have been deleted.' });
    const noId = await act('markRead', {});
    expect(noId.status, noId.text).toBe(400);
    expect(noId.body.error).toMatchObject({ code: 'MESSAGE_ID_INVALID', message: 'Give the id of a message.' });

    for (const name of ['listMessages', 'markRead']) {
      const refused = await pub('POST', `/apps/storefront/actions/${name}`, { input: { id: message.id, read: false } });
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.error.code).toBe('ADDON_ACTION_STAFF_ONLY');
    }
    expect(rows('select read from storefront__contact_messages')).toEqual([{ read: 1 }]);
    const shop = await pub('POST', '/apps/storefront/actions/shop', { input: null });
    expect(shop.status, shop.text).toBe(200);
    expect(shop.body.data.result).toEqual({ name: 'Test Shop', currency: 'EUR' });
  });

  it('posts each new message to the connected webhook, signed with the optional secret; disconnected, it posts nothing', async () => {
    // The signing secret is optional: the webhook URL alone connects.
    const missing = await admin.post('/api/v1/add-ons/storefront/connect', { fields: { signingSecret } });
    expect(missing.status).toBe(400);
    const connected = await admin.post('/api/v1/add-ons/storefront/connect', { fields: { webhookUrl: hook.url, signingSecret } });
    expect(connected.status, connected.text).toBe(200);

    let next = hook.next();
    const res = await contact({ name: 'Grace Hopper', email: 'grace@example.com', message: 'A gift card, please.' });
    expect(res.status, res.text).toBe(201);
    const post = await next;
    expect(post, 'the webhook was not reached').not.toBeNull();
    expect(post).toMatchObject({ method: 'POST', path: '/hook?token=abc' });
    expect(post!.headers['content-type']).toBe('application/json');
    const body = JSON.parse(post!.body);
    expect(body).toEqual({
      event: 'contact_message.created',
      message: { id: res.body.data.id, name: 'Grace Hopper', email: 'grace@example.com', message: 'A gift card, please.', created_at: expect.any(String) },
    });
    expect(post!.headers[SIGNATURE_HEADER]).toBe(`sha256=${createHmac('sha256', signingSecret).update(post!.body).digest('hex')}`);

    // Connected again without the secret: unsigned posts.
    expect((await admin.post('/api/v1/add-ons/storefront/connect', { fields: { webhookUrl: hook.url, signingSecret: '' } })).status).toBe(200);
    next = hook.next();
    expect((await contact({ name: 'Alan Turing', email: 'alan@example.com', message: 'Hello' })).status).toBe(201);
    const unsigned = await next;
    expect(JSON.parse(unsigned!.body).message.name).toBe('Alan Turing');
    expect(unsigned!.headers[SIGNATURE_HEADER]).toBeUndefined();

    // Disconnected: the host is no longer allowed and the hook has no URL.
    expect((await admin.delete('/api/v1/add-ons/storefront/connect')).status).toBe(200);
    next = hook.next(1500);
    expect((await contact({ name: 'Katherine Johnson', email: 'kj@example.com', message: 'Quiet please' })).status).toBe(201);
    expect(await next).toBeNull();
    expect(hook.posts).toHaveLength(2);
    expect(rows('select count(*) as n from storefront__contact_messages')).toEqual([{ n: 4 }]);
    expect(logLines.join('\n')).not.toContain(signingSecret);
  });

  it('takes an order request from a cart, priced from the products table, and mails it to the orders address', async () => {
    const ids = Object.fromEntries((rows('select id, name from storefront__products') as Array<{ id: number; name: string }>).map((r) => [r.name, r.id]));
    // The page's prices and total are not taken: the hook prices each line from the table.
    const sent = await pub('POST', `/records/${ORDERS}`, {
      values: {
        name: '  Ada   Lovelace ',
        email: 'ada@example.com',
        phone: '+44 20 7946 0000',
        note: 'Gift wrap, please.',
        items: [
          { product_id: ids['Blue mug'], quantity: 2 },
          { product_id: ids['Tea towel'], quantity: 1 },
          { product_id: ids['Blue mug'], quantity: 1 },
        ],
        total: '0.01',
        currency: 'XXX',
      },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.data).toMatchObject({ name: 'Ada Lovelace', total: '46.50', currency: 'EUR', note: 'Gift wrap, please.' });
    expect(sent.body.data).not.toHaveProperty('email');
    expect(sent.body.data).not.toHaveProperty('phone');
    expect(JSON.parse(sent.body.data.items)).toEqual([
      { product_id: ids['Blue mug'], name: 'Blue mug', price: '12.50', quantity: 3 },
      { product_id: ids['Tea towel'], name: 'Tea towel', price: '9.00', quantity: 1 },
    ]);
    expect(rows('select name, email, phone, total, currency, status from storefront__orders')).toEqual([
      { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000', total: 46.5, currency: 'EUR', status: 'new' },
    ]);
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toEqual(['orders@shop.example']);
    expect(mail!.subject).toBe(`Order request ${sent.body.data.id} from Ada Lovelace`);
    expect(mail!.text).toContain('3 × Blue mug at 12.50 = 37.50');
    expect(mail!.text).toContain('1 × Tea towel at 9.00 = 9.00');
    expect(mail!.text).toContain('Total: 46.50 EUR');
    expect(mail!.text).toContain('From: Ada Lovelace <ada@example.com>');

    // Refused, with the reason: an inactive product, an empty cart, no e-mail address.
    const inactive = await pub('POST', `/records/${ORDERS}`, {
      values: { name: 'Eve', email: 'eve@example.com', items: [{ product_id: ids['Old mug'], quantity: 1 }] },
    });
    expect(inactive.status, inactive.text).toBe(400);
    expect(inactive.body.error).toMatchObject({
      code: 'ADDON_REFUSED',
      message: 'A product in your cart is no longer sold. Please remove it and send the order again.',
    });
    const empty = await pub('POST', `/records/${ORDERS}`, { values: { name: 'Eve', email: 'eve@example.com', items: [] } });
    expect(empty.body.error).toMatchObject({ code: 'ADDON_REFUSED', message: 'Your cart is empty.' });
    const noMail = await pub('POST', `/records/${ORDERS}`, { values: { name: 'Eve', email: 'nope', items: [{ product_id: ids['Blue mug'], quantity: 1 }] } });
    expect(noMail.body.error).toMatchObject({ code: 'ADDON_REFUSED', message: 'Please give an e-mail address we can answer to.' });
    expect(rows('select count(*) as n from storefront__orders')).toEqual([{ n: 1 }]);
    // Orders are never read back through the public API.
    expect((await pub('GET', `/records/${ORDERS}`)).status).toBe(404);
  });

  it('keeps product images staff upload and serves them through the images endpoint only', async () => {
    const id = (rows("select id from storefront__products where name = 'Blue mug'") as Array<{ id: number }>)[0]!.id;
    const refused = await pub('POST', '/apps/storefront/actions/setImage', { input: { productId: id, contentType: 'image/png', data: PNG } });
    expect(refused.status).toBe(403);
    const set = await admin.post('/api/v1/public/apps/storefront/actions/setImage', { input: { productId: id, contentType: 'image/png', data: PNG } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data.result).toMatchObject({ productId: id, contentType: 'image/png' });
    const notPng = await admin.post('/api/v1/public/apps/storefront/actions/setImage', {
      input: { productId: id, contentType: 'image/png', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64') },
    });
    // A bad upload is refused with a 4xx and its reason (ctx.refuse), which the image page shows.
    expect(notPng.status, notPng.text).toBe(400);
    expect(notPng.body.error).toMatchObject({ code: 'IMAGE_INVALID', message: 'The file is not a PNG image.' });
    const tooBig = await admin.post('/api/v1/public/apps/storefront/actions/setImage', {
      input: { productId: id, contentType: 'image/png', data: 'A'.repeat(60_004) },
    });
    expect(tooBig.status, tooBig.text).toBe(400);
    expect(tooBig.body.error).toMatchObject({ code: 'IMAGE_INVALID', message: 'The image is over 45 kB: make it smaller.' });
    const noProduct = await admin.post('/api/v1/public/apps/storefront/actions/setImage', {
      input: { productId: 999_999, contentType: 'image/png', data: PNG },
    });
    expect(noProduct.status, noProduct.text).toBe(404);
    expect(noProduct.body.error).toMatchObject({ code: 'PRODUCT_NOT_FOUND', message: 'There is no product 999999: it may have been deleted.' });
    const noId = await admin.post('/api/v1/public/apps/storefront/actions/removeImage', { input: {} });
    expect(noId.status, noId.text).toBe(400);
    expect(noId.body.error).toMatchObject({ code: 'PRODUCT_ID_INVALID' });
    const listed = await admin.post('/api/v1/public/apps/storefront/actions/listProducts', { input: {} });
    expect(listed.body.data.result.products.find((p: { id: number }) => p.id === id)).toMatchObject({ name: 'Blue mug', hasImage: true });
    const products = await pub('GET', `/records/${PRODUCTS}?search=blue`);
    expect(products.body.data[0].image_updated_at).toEqual(expect.any(String));
    const images = await pub('GET', `/records/${IMAGES}?filter[product_id][in]=${id}`);
    expect(images.status, images.text).toBe(200);
    expect(images.body.data).toEqual([expect.objectContaining({ product_id: id, content_type: 'image/png', data: { $binary: PNG } })]);
    expect((await pub('POST', `/records/${IMAGES}`, { values: { product_id: id, content_type: 'image/png', data: { $binary: PNG } } })).status).toBe(404);
    const removed = await admin.post('/api/v1/public/apps/storefront/actions/removeImage', { input: { productId: id } });
    expect(removed.body.data.result).toEqual({ productId: id, removed: true });
    expect((await pub('GET', `/records/${IMAGES}?filter[product_id][in]=${id}`)).body.data).toEqual([]);
  });

  it('uninstalls with dropData: the tables go', async () => {
    const res = await admin.delete('/api/v1/add-ons/storefront?dropData=true');
    expect(res.status, res.text).toBe(200);
    expect(sqliteTablesLike(source.database, 'storefront')).toEqual([]);
    expect((await pub('GET', `/records/${PRODUCTS}`)).status).toBe(401);
  });
});

describe('storefront with network features off', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let hook: Receiver;
  const logLines: string[] = [];

  beforeAll(async () => {
    hook = await receiver();
    ({ inst, admin } = await bootWithAdmin({
      ...addonsReachingLoopback('fetch'),
      env: { SVC_PUBLIC_API_ORIGINS: ORIGIN, SVC_NETWORK_FEATURES: 'false' },
      logLines,
    }));
    source = await sourceFixture('sqlite');
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
    await hook?.close();
  });

  it('takes the message but never reaches the webhook', async () => {
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(created.status, created.text).toBe(201);
    const { appKey } = await installFromCatalog(admin, 'storefront', '1.0.0', created.body.data.connection.id);
    expect((await admin.post('/api/v1/add-ons/storefront/connect', { fields: { webhookUrl: hook.url } })).status).toBe(200);
    const res = await fetch(`${inst.url}/api/v1/public/records/${CONTACT}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${appKey}`, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ values: { name: 'Ada', email: 'ada@example.com', message: 'Offline?' } }),
    });
    expect(res.status, await res.text()).toBe(201);
    // The add-on's hook runs after the answer, in the sandbox, and says why it did not post in
    // the instance's log; once it has, nothing reached the webhook.
    await expect
      .poll(() => logLines.some((l) => l.includes('the webhook could not be reached') && l.includes('NETWORK_FEATURES_DISABLED')), { timeout: 15_000 })
      .toBe(true);
    expect(hook.posts).toEqual([]);
  });
});

/** The app's own server code, called directly: what the sandbox runs. */
describe('storefront server code', () => {
  it('computes SHA-256 and HMAC-SHA256 as node:crypto does (the sandbox has neither crypto nor TextEncoder)', () => {
    for (const text of ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'é ü € 😀 \ud800', 'x'.repeat(1000)]) {
      expect(Buffer.from(utf8(text)).equals(Buffer.from(text, 'utf8')), text).toBe(true);
      expect(Buffer.from(sha256(utf8(text))).toString('hex'), text).toBe(createHash('sha256').update(text).digest('hex'));
      for (const key of ['k', 'secret-€', 'K'.repeat(64), 'K'.repeat(100)])
        expect(hmacSha256Hex(key, text), `${key} ${text}`).toBe(createHmac('sha256', key).update(text).digest('hex'));
    }
  });

  it('reads a cart and checks an image before either is written', () => {
    expect(
      cartOf([
        { product_id: 1, quantity: 2 },
        { product_id: 1, quantity: 1 },
        { product_id: 2, quantity: 5 },
      ]),
    ).toEqual([
      { product_id: 1, quantity: 3 },
      { product_id: 2, quantity: 5 },
    ]);
    expect(cartOf('[{"product_id":3,"quantity":1}]')).toEqual([{ product_id: 3, quantity: 1 }]);
    expect(cartOf([])).toBe('Your cart is empty.');
    expect(cartOf([{ product_id: 1, quantity: 0 }])).toMatch(/1 to 99/);
    expect(cartOf([{ product_id: '1', quantity: 1 }])).toMatch(/1 to 99/);
    expect(cartOf('nope')).toMatch(/cannot read|not one/);
    expect(base64Head(PNG, 4)).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(imageProblem('image/png', PNG)).toBeNull();
    expect(imageProblem('image/svg+xml', PNG)).toMatch(/JPEG, PNG or WebP/);
    expect(imageProblem('image/jpeg', PNG)).toBe('The file is not a JPEG image.');
    expect(imageProblem('image/png', 'not base64!')).toMatch(/base64/);
    expect(imageProblem('image/png', randomBytes(46_000).toString('base64'))).toMatch(/over 45 kB/);
  });

  it('tidies and checks a message before it is written', async () => {
    const ctx = {} as AddonContext;
    const before = app.hooks['contact_messages.beforeWrite'];
    const event = (values: Record<string, Json>) => ({ table: 'contact_messages', op: 'insert' as const, values, previous: null });
    expect(await before(ctx, event({ name: ' Ada  L ', email: ' ada@example.com ', message: ' Hi \n there ' }))).toEqual({
      values: { name: 'Ada L', email: 'ada@example.com', message: 'Hi \n there' },
    });
    expect(await before(ctx, event({ name: ' ', email: 'ada@example.com', message: 'x' }))).toEqual({ refuse: expect.any(String) });
    expect(await before(ctx, event({ name: 'Ada', email: 'ada@example.com', message: '  ' }))).toEqual({ refuse: expect.any(String) });
    expect(JSON.parse(webhookBody({ id: 1, name: 'A', email: 'a@b.c', message: 'm', created_at: 'now', read: false }))).toEqual({
      event: 'contact_message.created',
      message: { id: 1, name: 'A', email: 'a@b.c', message: 'm', created_at: 'now' },
    });
  });
});
