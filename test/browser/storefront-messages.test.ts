import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installFromCatalog } from '../../catalog/testing.js';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { axeViolations, browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser } from './harness.js';

/** The shop's site, where visitors write from (listed in SVC_PUBLIC_API_ORIGINS). */
const ORIGIN = 'https://shop.example';

describe.runIf(browserAvailable())("storefront's messages page placed in the dashboard's navigation, in a real browser", () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let appKey = '';
  const { openPage, onScreen, signIn } = useDashboardBrowser('storefront-messages');

  const rows = () => {
    const db = new Database(source.database, { readonly: true });
    try {
      return db.prepare('select name, message, read from storefront__contact_messages order by id').all();
    } finally {
      db.close();
    }
  };
  /** A visitor's message as the shop page sends it: the app key, from the shop's origin. */
  const contact = async (values: { name: string; email: string; message: string }) => {
    const res = await fetch(`${inst.url}/api/v1/public/records/storefront-contact`, {
      method: 'POST',
      headers: { authorization: `Bearer ${appKey}`, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ values }),
    });
    expect(res.status, await res.text()).toBe(201);
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    ({ appKey } = await installFromCatalog(admin, 'storefront', '1.0.0', conn.body.data.connection.id));
    const placed = await admin.put('/api/v1/surfaces/storefront/placement', { surface: 'messages', nav: { section: 'shop', order: 1 } });
    expect(placed.status, placed.text).toBe(200);
    await contact({ name: 'Ada Lovelace', email: 'ada@example.com', message: 'Do you ship to Paris?' });
    await contact({ name: 'Grace Hopper', email: 'grace@example.com', message: 'Is the blue mug dishwasher-safe?' });
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('an admin opens the placed Messages page from the navigation, reads the new messages and marks one read', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    const section = page.getByRole('navigation', { name: msg('nav.label') }).getByRole('list', { name: 'Shop' });
    await section.getByRole('link', { name: 'Messages' }).click();
    await onScreen(page, 'storefront-messages', exactly('Messages'));
    expect(new URL(page.url()).pathname).toBe('/apps/storefront/messages');
    expect(await section.getByRole('link', { name: 'Messages' }).getAttribute('aria-current')).toBe('page');
    const iframe = page.locator('main iframe');
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts allow-forms');
    expect(await iframe.getAttribute('src')).toBe('/api/v1/add-ons/storefront/bundle/messages/index.html');

    // The page lists the unread messages it got through the dashboard's bridge (the app's staff-only action, the admin's session).
    const frame = page.frameLocator('main iframe');
    const status = frame.getByRole('status');
    await expect.poll(() => status.textContent()).toBe('2 messages.');
    expect(await frame.locator('.sm-item h2').allTextContents()).toEqual(['Grace Hopper', 'Ada Lovelace']);
    expect(await frame.locator('.sm-body').allTextContents()).toEqual(['Is the blue mug dishwasher-safe?', 'Do you ship to Paris?']);

    await frame.getByRole('button', { name: 'Mark as read: message from Grace Hopper' }).click();
    await expect.poll(() => status.textContent()).toBe('Marked the message from Grace Hopper as read.');
    expect(await frame.getByRole('button', { name: 'Mark as unread: message from Grace Hopper' }).count()).toBe(1);
    expect(rows()).toEqual([
      { name: 'Ada Lovelace', message: 'Do you ship to Paris?', read: 0 },
      { name: 'Grace Hopper', message: 'Is the blue mug dishwasher-safe?', read: 1 },
    ]);
    await frame.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => status.textContent()).toBe('1 message.');
    expect(await frame.locator('.sm-item h2').allTextContents()).toEqual(['Ada Lovelace']);

    expectNoProblems(problems);

    // The framed page itself, as it stands in the dashboard. Last: axe's own fetch of the page's stylesheet (to read
    // its rules, which an opaque origin cannot) is refused by the page's connect-src, as it should be.
    const framed = page.frames().find((f) => f.url().endsWith('/api/v1/add-ons/storefront/bundle/messages/index.html'));
    expect(framed).toBeDefined();
    expect((await axeViolations(framed!)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  });
});
