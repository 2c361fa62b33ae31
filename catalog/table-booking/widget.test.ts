import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import { browserAvailable, launchChromium, recordForeignRequests, recordPageProblems } from '../../test/browser/chromium.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { mappedDomain, surfaceHost, type SurfaceHost } from '../testing.js';

const WAIT_MS = 15_000;
const WIDGET = fileURLToPath(new URL('./surfaces/widget/', import.meta.url));

describe.runIf(browserAvailable())('the table-booking widget in a real browser', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let browser: Browser;
  let host: SurfaceHost;
  let appKey = '';
  const date = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    host = await surfaceHost(WIDGET, () => ({ appKey, apiBase: `${inst.url}/api/v1`, api: inst.url }));
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: host.origin } }));
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    const connectionId = conn.body.data.connection.id;
    expect((await admin.post('/api/v1/add-ons/download', { key: 'table-booking', version: '1.0.0' })).status).toBe(201);
    const plan = await admin.get(`/api/v1/add-ons/table-booking/plan?version=1.0.0&connectionId=${connectionId}`);
    expect(plan.status, plan.text).toBe(200);
    const installed = await admin.post('/api/v1/add-ons', { key: 'table-booking', version: '1.0.0', connectionId, planHash: plan.body.data.plan.hash });
    expect(installed.status, installed.text).toBe(201);
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    appKey = (await admin.get(`/api/v1/public-keys/${installed.body.data.addon.appKeyId}/reveal`)).body.data.secret;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await host?.close();
    await inst?.close();
    await source?.cleanup();
  });

  /** A guest's booking through the widget at `url`: a day, the party, a time, name and e-mail; the code it shows. */
  async function bookThroughWidget(
    url: string,
    opts: { browser: Browser; local?: string[]; party: number; time: string; name: string; email: string },
  ): Promise<string> {
    const context = await opts.browser.newContext({ viewport: { width: 480, height: 800 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      const problems = recordPageProblems(page);
      const foreign = recordForeignRequests(page, opts.local);
      await page.goto(url);
      await page.locator('#tb-date').fill(date);
      await page.locator('#tb-date').dispatchEvent('change');
      await page.locator('#tb-party').fill(String(opts.party));
      await page.locator('#tb-party').dispatchEvent('change');
      // The last change's answer is in once the times are no longer busy.
      await page.locator('#tb-times[aria-busy="false"]').waitFor({ state: 'attached' });
      const times = page.locator('.tb-time');
      expect(await times.allTextContents()).toEqual([
        '12:00',
        '12:30',
        '13:00',
        '13:30',
        '14:00',
        '18:00',
        '18:30',
        '19:00',
        '19:30',
        '20:00',
        '20:30',
        '21:00',
        '21:30',
      ]);
      await page.getByRole('button', { name: opts.time }).click();
      await page.locator('#tb-name').fill(opts.name);
      await page.locator('#tb-email').fill(opts.email);
      await page.locator('#tb-submit').click();
      await page.locator('#tb-done').waitFor({ state: 'visible' });
      const code = (await page.locator('#tb-code').textContent())?.trim() ?? '';
      expect(code.length).toBeGreaterThan(3);
      expect(await page.locator('#tb-when').textContent()).toBe(`${opts.party} guests on ${date} at ${opts.time}.`);
      expect(problems).toEqual([]);
      expect(foreign).toEqual([]);
      return code;
    } finally {
      await context.close();
    }
  }

  const bookingsOf = (email: string) => {
    const db = new Database(source.database, { readonly: true });
    try {
      return db.prepare('select party, email, code from table_booking__bookings where email = ?').all(email);
    } finally {
      db.close();
    }
  };

  it('picks a day, shows the free times, books and shows the booking code', async () => {
    const code = await bookThroughWidget(`${host.origin}/index.html`, {
      browser,
      party: 3,
      time: '19:30',
      name: '  Katherine Johnson ',
      email: 'katherine@example.com',
    });
    expect(bookingsOf('katherine@example.com')).toEqual([{ party: 3, email: 'katherine@example.com', code }]);
  });

  it('books through its own surface served by the instance on a mapped domain (D28)', async () => {
    // The browser resolves the name to the instance; the page's origin is http://booking.test:<port>, listed nowhere.
    const onDomain = await mappedDomain(inst, admin, { name: 'booking.test', appKey: 'table-booking', surface: 'widget' });
    try {
      const code = await bookThroughWidget(`${onDomain.origin}/`, {
        browser: onDomain.browser,
        local: ['booking.test'],
        party: 2,
        time: '20:00',
        name: 'Dorothy Vaughan',
        email: 'dorothy@example.com',
      });
      expect(bookingsOf('dorothy@example.com')).toEqual([{ party: 2, email: 'dorothy@example.com', code }]);
    } finally {
      await onDomain.browser.close();
    }
  });
});
