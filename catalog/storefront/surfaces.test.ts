import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import { axeViolations, browserAvailable, recordForeignRequests, recordPageProblems } from '../../test/browser/chromium.js';
import { atWidth, exactly, expectNoProblems, PHONE, useDashboardBrowser, WIDE } from '../../test/browser/harness.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin, ROOT } from '../../test/helpers/identity.js';
import { TestSmtpServer } from '../../test/helpers/smtp.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { installFromCatalog, mappedDomain, surfaceHost, type MappedDomain, type SurfaceHost } from '../testing.js';

const WAIT_MS = 15_000;
const MESSAGES = fileURLToPath(new URL('./surfaces/messages/', import.meta.url));
/** A product image the page's CSP allows (data:); another host's would be dropped from the card. */
const APRON = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 3"><rect width="4" height="3" fill="#c84"/></svg>')}`;

describe.runIf(browserAvailable())("storefront's pages in a real browser", () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let shop: MappedDomain;
  let messages: SurfaceHost;
  let appKey = '';
  let dashboard: Server | null = null;
  const smtp = new TestSmtpServer();
  const { openPage, onScreen, signIn } = useDashboardBrowser('storefront');

  const rows = (sql: string) => {
    const db = new Database(source.database, { readonly: true });
    try {
      return db.prepare(sql).all();
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    messages = await surfaceHost(MESSAGES, () => ({ appKey, apiBase: `${inst.url}/api/v1/public`, api: inst.url }));
    // The public API is served only with some origin listed (D17); the shop's own name is not among them.
    await smtp.start();
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: 'https://elsewhere.example' } }));
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    const connectionId = conn.body.data.connection.id;
    ({ appKey } = await installFromCatalog(admin, 'storefront', '1.0.0', connectionId, {
      shopName: 'Corner Shop',
      currency: 'EUR',
      ordersEmail: 'orders@corner.example',
    }));
    for (const values of [
      { name: 'Blue mug', description: 'Stoneware, 300 ml', price: '12.50', active: true },
      { name: 'Tea towel', description: 'Linen, goes with the mug', price: '9.00', active: true },
      { name: 'Old mug', description: 'No longer sold', price: '5.00', active: false },
      { name: 'Apron', description: 'Waxed cotton', price: '24.90', active: true, image_url: APRON },
    ]) {
      const res = await admin.post(`/api/v1/data/${connectionId}/storefront__products`, { values });
      expect(res.status, res.text).toBe(201);
    }
    // The shop is served by the instance itself on its own host name; its origin is listed nowhere (D28).
    shop = await mappedDomain(inst, admin, { name: 'shop.test', appKey: 'storefront', surface: 'shop' });
  });
  afterAll(async () => {
    await shop?.browser.close().catch(() => undefined);
    await messages?.close();
    dashboard?.close();
    await inst?.close();
    await source?.cleanup();
    await smtp.stop();
  });

  atWidth(PHONE, (viewport) => {
    it('the owner uploads a product photo through the Product images page in the dashboard; it is made small and kept in the database', async () => {
      const placed = await admin.put('/api/v1/surfaces/storefront/placement', { surface: 'products', nav: { section: 'shop', order: 2 } });
      expect(placed.status, placed.text).toBe(200);
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      // A photo-like PNG of 1600×1200 (noise does not compress): far over what an action takes, so the page shrinks it.
      const photo = await page.evaluate(() => {
        const canvas = document.createElement('canvas');
        canvas.width = 1600;
        canvas.height = 1200;
        const g = canvas.getContext('2d')!;
        const pixels = g.createImageData(1600, 1200);
        for (let i = 0; i < pixels.data.length; i += 4) {
          pixels.data[i] = (i / 4) % 256;
          pixels.data[i + 1] = Math.floor(Math.random() * 256);
          pixels.data[i + 2] = 128;
          pixels.data[i + 3] = 255;
        }
        g.putImageData(pixels, 0, 0);
        return canvas.toDataURL('image/png').split(',')[1]!;
      });
      expect(Buffer.from(photo, 'base64').length).toBeGreaterThan(1_000_000);
      await page.goto(`${inst.url}/apps/storefront/products`);
      await onScreen(page, 'storefront-products', exactly('Product images'));
      const frame = page.frameLocator('main iframe');
      const status = frame.getByRole('status');
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('4 products.');
      await frame.getByLabel('Image for Blue mug').setInputFiles({ name: 'mug.png', mimeType: 'image/png', buffer: Buffer.from(photo, 'base64') });
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toMatch(/^The image of Blue mug is saved \(\d+ kB\)\.$/);
      expect(await frame.getByRole('img', { name: 'The image of Blue mug' }).isVisible()).toBe(true);
      const [stored] = rows(
        "select i.content_type, length(i.data) as bytes from storefront__product_images i join storefront__products p on p.id = i.product_id where p.name = 'Blue mug'",
      ) as Array<{ content_type: string; bytes: number }>;
      expect(['image/webp', 'image/jpeg']).toContain(stored!.content_type);
      expect(stored!.bytes).toBeLessThanOrEqual(45_000);
      expect(stored!.bytes).toBeGreaterThan(1_000);
      // A product deleted meanwhile (in the data screens): the app refuses the image (ctx.refuse, 404) and the page says why.
      const db = new Database(source.database);
      const { id } = db.prepare("select id from storefront__products where name = 'Old mug'").get() as { id: number };
      db.prepare('delete from storefront__products where id = ?').run(id);
      db.close();
      await frame.getByLabel('Image for Old mug').setInputFiles({ name: 'old.png', mimeType: 'image/png', buffer: Buffer.from(photo, 'base64') });
      await expect
        .poll(() => status.textContent(), { timeout: WAIT_MS })
        .toBe(`The image of Old mug was not saved: There is no product ${id}: it may have been deleted.`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expectNoProblems(problems, [404]);
      const framed = page.frames().find((f) => f.url().endsWith('/api/v1/add-ons/storefront/bundle/products/index.html'));
      expect((await axeViolations(framed!)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    });
  });

  it('the shop, on its mapped domain, lists the active products with their images, takes an order request from a cart, searches and sends a contact message', async () => {
    const context = await shop.browser.newContext({ viewport: WIDE, locale: 'en-US' });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      const problems = recordPageProblems(page);
      const foreign = recordForeignRequests(page, ['shop.test']);
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      await page.goto(`${shop.origin}/`);
      const status = page.getByRole('status').first();
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('3 products.');
      expect(await page.locator('.sf-card h3').allTextContents()).toEqual(['Apron', 'Blue mug', 'Tea towel']);
      const loaded = () =>
        page.locator('.sf-card img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0));
      // The Apron's image is a data: URL of its own; the Blue mug's was uploaded through the instance (the story before).
      await expect.poll(loaded, { timeout: WAIT_MS }).toEqual([true, true]);
      // The name and currency come from the settings through the app's `shop` action.
      await expect.poll(() => page.locator('h1').textContent(), { timeout: WAIT_MS }).toBe('Corner Shop');
      await expect.poll(() => page.locator('.sf-price').first().textContent(), { timeout: WAIT_MS }).toBe('€24.90');

      // An order request: a cart of two products, one changed in quantity, one removed, sent with a name and an e-mail address.
      const cardOf = (name: string) => page.locator('.sf-card', { has: page.getByRole('heading', { name, exact: true }) });
      await cardOf('Blue mug').getByRole('button', { name: 'Add Blue mug to the order' }).click();
      await cardOf('Blue mug').getByRole('button', { name: 'Add Blue mug to the order' }).click();
      await cardOf('Tea towel').getByRole('button', { name: 'Add Tea towel to the order' }).click();
      await cardOf('Apron').getByRole('button', { name: 'Add Apron to the order' }).click();
      expect(await page.locator('#sf-cart-total').textContent()).toBe('Total: €58.90');
      await page.getByLabel('Quantity of Blue mug').fill('3');
      await page.getByLabel('Quantity of Blue mug').press('Tab');
      await page.getByRole('button', { name: 'Remove Tea towel' }).click();
      expect(await page.locator('#sf-cart-total').textContent()).toBe('Total: €62.40');
      await page.getByLabel('Your name').fill('Grace Hopper');
      await page.getByLabel('Your e-mail').fill('grace@example.com');
      await page.getByLabel('Note for the shop (optional)').fill('Blue ones only.');
      await page.getByRole('button', { name: 'Send order request' }).click();
      await expect
        .poll(() => page.locator('#sf-ordered').textContent(), { timeout: WAIT_MS })
        .toMatch(/^Thank you: order request \d+ is sent \(total €62\.40\)\. We will confirm it by e-mail\.$/);
      expect(await page.locator('#sf-cart-form').isVisible()).toBe(false);
      const orders = rows('select name, email, items, total, currency from storefront__orders') as Array<{ items: string }>;
      expect(orders).toMatchObject([{ name: 'Grace Hopper', email: 'grace@example.com', total: 62.4, currency: 'EUR' }]);
      expect(JSON.parse(orders[0]!.items).map((l: { name: string; quantity: number }) => [l.name, l.quantity])).toEqual([
        ['Blue mug', 3],
        ['Apron', 1],
      ]);
      // The owner's side of it: the order request in the shop's orders mailbox.
      const [mail] = await smtp.waitFor(1);
      expect(mail!.to).toEqual(['orders@corner.example']);
      expect(mail!.text).toContain('3 × Blue mug at 12.50 = 37.50');
      expect(mail!.text).toContain('Total: 62.40 EUR');
      expect(mail!.text).toContain('Blue ones only.');

      await page.getByLabel('Search products').fill('mug');
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('2 products for “mug”.');
      expect(await page.locator('.sf-card h3').allTextContents()).toEqual(['Blue mug', 'Tea towel']);
      await page.getByLabel('Sort by').selectOption('-price');
      await expect.poll(() => page.locator('.sf-card h3').allTextContents(), { timeout: WAIT_MS }).toEqual(['Blue mug', 'Tea towel']);
      await page.getByLabel('Search products').fill('nothing like it');
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('No products match “nothing like it”.');

      const contact = page.locator('#sf-form');
      await contact.getByLabel('Name').fill('Ada Lovelace');
      await contact.getByLabel('E-mail').fill('ada@example.com');
      await contact.getByLabel('Message').fill('Do you ship to Paris?');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.locator('#sf-sent').textContent(), { timeout: WAIT_MS }).toContain('your message is sent');
      expect(await contact.getByLabel('Message').inputValue()).toBe('');
      expect(rows('select name, email, message, read from storefront__contact_messages')).toEqual([
        { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Do you ship to Paris?', read: 0 },
      ]);

      // A message the app refuses says why, in the alert.
      await contact.getByLabel('Name').fill('Eve');
      await contact.getByLabel('E-mail').fill('eve@nowhere');
      await contact.getByLabel('Message').fill('hi');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.getByRole('alert').textContent(), { timeout: WAIT_MS }).toBe('Please give an e-mail address we can answer to.');

      expect(await axeViolations(page)).toEqual([]);
      expect(problems.filter((p) => !p.includes('400 (Bad Request)'))).toEqual([]);
      expect(foreign).toEqual([]);
      // The page, its files and its API calls all on its own name: the meta tag's apiBase is same-origin there.
      const http = requested.filter((u) => !u.startsWith('data:'));
      expect(http.filter((u) => !u.startsWith(`${shop.origin}/`))).toEqual([]);
      expect(http.some((u) => u.startsWith(`${shop.origin}/api/v1/public/records/storefront-products`))).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('the messages page lists and marks messages through the dashboard bridge (postMessage)', async () => {
    const context = await shop.browser.newContext({ viewport: { width: 900, height: 900 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      const problems = recordPageProblems(page);
      const calls: Array<{ name: string; input: unknown }> = [];
      // What the dashboard does for a framed dashboard-page: the action with the staff session, the answer posted back.
      await page.exposeFunction('svcAction', async (name: string, input: unknown) => {
        calls.push({ name, input });
        const res = await admin.post(`/api/v1/public/apps/storefront/actions/${encodeURIComponent(name)}`, { input });
        return res.status === 200 ? { ok: true, data: res.body.data.result } : { ok: false, error: res.body.error };
      });
      const parent = `<!doctype html><html lang="en"><head><title>Dashboard</title></head><body>
        <iframe id="app" title="Messages" sandbox="allow-scripts" src="${messages.origin}/index.html" style="width:100%;height:800px"></iframe>
        <script>
          const frame = document.getElementById('app');
          window.addEventListener('message', async (event) => {
            const msg = event.data;
            if (event.source !== frame.contentWindow || !msg || msg.type !== 'svc-action') return;
            const answer = await window.svcAction(msg.name, msg.input);
            frame.contentWindow.postMessage({ type: 'svc-action-result', id: msg.id, ...answer }, '*');
          });
        </script></body></html>`;
      // Served from loopback (a routed answer counts as a public page, which Chromium keeps off local addresses).
      const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(parent));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      dashboard = server;
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      const frame = page.frameLocator('#app');
      await expect.poll(() => frame.getByRole('status').textContent(), { timeout: WAIT_MS }).toBe('1 message.');
      expect(await frame.locator('.sm-item h2').allTextContents()).toEqual(['Ada Lovelace']);
      expect(await frame.locator('.sm-body').textContent()).toBe('Do you ship to Paris?');
      await frame.getByRole('button', { name: 'Mark as read: message from Ada Lovelace' }).click();
      await expect.poll(() => frame.getByRole('status').textContent(), { timeout: WAIT_MS }).toBe('Marked the message from Ada Lovelace as read.');
      expect(rows('select read from storefront__contact_messages')).toEqual([{ read: 1 }]);
      await frame.getByRole('button', { name: 'Refresh' }).click();
      await expect.poll(() => frame.getByRole('status').textContent(), { timeout: WAIT_MS }).toBe('No unread messages.');
      await frame.getByLabel('Only unread').uncheck();
      await expect.poll(() => frame.getByRole('status').textContent(), { timeout: WAIT_MS }).toBe('1 message.');
      expect(calls.map((c) => c.name)).toEqual(['listMessages', 'markRead', 'listMessages', 'listMessages']);
      expect(calls[1]!.input).toEqual({ id: expect.any(Number), read: true });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
