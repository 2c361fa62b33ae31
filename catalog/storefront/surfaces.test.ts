import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import { axeViolations, browserAvailable, recordForeignRequests, recordPageProblems } from '../../test/browser/chromium.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
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
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: 'https://elsewhere.example' } }));
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    const connectionId = conn.body.data.connection.id;
    ({ appKey } = await installFromCatalog(admin, 'storefront', '1.0.0', connectionId, { shopName: 'Corner Shop', currency: 'EUR' }));
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
  });

  it('the shop, on its mapped domain, lists the active products, searches them and sends a contact message', async () => {
    const context = await shop.browser.newContext({ viewport: { width: 900, height: 900 }, locale: 'en-US' });
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
      await expect.poll(loaded, { timeout: WAIT_MS }).toEqual([true]);
      // The name and currency come from the settings through the app's `shop` action.
      await expect.poll(() => page.locator('h1').textContent(), { timeout: WAIT_MS }).toBe('Corner Shop');
      await expect.poll(() => page.locator('.sf-price').first().textContent(), { timeout: WAIT_MS }).toBe('€24.90');

      await page.getByLabel('Search products').fill('mug');
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('2 products for “mug”.');
      expect(await page.locator('.sf-card h3').allTextContents()).toEqual(['Blue mug', 'Tea towel']);
      await page.getByLabel('Sort by').selectOption('-price');
      await expect.poll(() => page.locator('.sf-card h3').allTextContents(), { timeout: WAIT_MS }).toEqual(['Blue mug', 'Tea towel']);
      await page.getByLabel('Search products').fill('nothing like it');
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('No products match “nothing like it”.');

      await page.getByLabel('Name').fill('Ada Lovelace');
      await page.getByLabel('E-mail').fill('ada@example.com');
      await page.getByLabel('Message').fill('Do you ship to Paris?');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.locator('#sf-sent').textContent(), { timeout: WAIT_MS }).toContain('your message is sent');
      expect(await page.getByLabel('Message').inputValue()).toBe('');
      expect(rows('select name, email, message, read from storefront__contact_messages')).toEqual([
        { name: 'Ada Lovelace', email: 'ada@example.com', message: 'Do you ship to Paris?', read: 0 },
      ]);

      // A message the app refuses says why, in the alert.
      await page.getByLabel('Name').fill('Eve');
      await page.getByLabel('E-mail').fill('eve@nowhere');
      await page.getByLabel('Message').fill('hi');
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
