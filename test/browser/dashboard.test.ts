import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCT_NAME, VERSION } from '../../kernel/version.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable, launchChromium, recordForeignRequests, recordPageProblems } from './chromium.js';

/** Upper bound for any single wait on the browser (navigation, selector, network). */
const WAIT_MS = 15_000;
const SCREENSHOT = '/tmp/dashboard.png';

interface OpenedPage {
  page: Page;
  /** Requests to a host that is not loopback. */
  foreign: string[];
  /** Page errors, console errors (CSP violations included) and failed requests. */
  problems: string[];
  /** Every URL the page requested. */
  requested: string[];
}

describe.runIf(browserAvailable())('the dashboard in a real browser', () => {
  let inst: TestInstance;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    inst = await startInstance();
    browser = await launchChromium();
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await inst?.close();
  });

  /** A fresh context (own cookies and cache) with recorders attached before the first request. */
  async function openPage(): Promise<OpenedPage> {
    const context = await browser.newContext({ viewport: { width: 1024, height: 640 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.setDefaultNavigationTimeout(WAIT_MS);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    return { page, foreign: recordForeignRequests(page), problems: recordPageProblems(page), requested };
  }

  /** The status line once the two API calls have answered (it is absent while loading). */
  async function apiStatus(page: Page): Promise<string> {
    const status = page.getByTestId('api-status');
    await status.waitFor({ state: 'visible', timeout: WAIT_MS });
    return (await status.textContent({ timeout: WAIT_MS })) ?? '';
  }

  it('renders the dashboard with the status read from the real API (setup open)', async () => {
    const { page, foreign, problems } = await openPage();
    const res = await page.goto(inst.url + '/', { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(await page.title()).toBe('Admin');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Admin');

    const text = await apiStatus(page);
    expect(text).toContain('API online');
    expect(text).toContain(`version ${VERSION}`);
    expect(text).toContain('setup is open');

    await page.screenshot({ path: SCREENSHOT, fullPage: true, timeout: WAIT_MS });
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('shows "setup is complete" after the super admin is created through the API', async () => {
    const { page, problems } = await openPage();
    await page.goto(inst.url + '/', { waitUntil: 'load' });
    expect(await apiStatus(page)).toContain('setup is open');

    const created = await inst.client().post('/api/v1/setup/super-admin', { email: 'admin@example.com', password: 'correct horse battery', name: 'Admin' });
    expect(created.status).toBe(201);

    await page.reload({ waitUntil: 'load' });
    const text = await apiStatus(page);
    expect(text).toContain('API online');
    expect(text).toContain('setup is complete');
    expect(problems).toEqual([]);
  });

  it('renders the app on a deep link (history fallback)', async () => {
    const { page, foreign, problems } = await openPage();
    const res = await page.goto(inst.url + '/some/deep/path', { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toContain('text/html');
    expect(new URL(page.url()).pathname).toBe('/some/deep/path');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Admin');
    expect(await apiStatus(page)).toContain('API online');
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('renders the API reference at /docs from local assets, with no request off the machine', async () => {
    const { page, foreign, problems, requested } = await openPage();
    const res = await page.goto(inst.url + '/docs', { waitUntil: 'load' });
    expect(res?.status()).toBe(200);

    const title = page.locator('.swagger-ui .info .title');
    await title.waitFor({ state: 'visible', timeout: WAIT_MS });
    expect(await title.textContent()).toContain(`${PRODUCT_NAME} REST API`);
    // The operations come from /docs/openapi.json, so the document loaded and parsed.
    const healthz = page.locator('.opblock-summary-path', { hasText: '/api/v1/healthz' });
    await healthz.first().waitFor({ state: 'visible', timeout: WAIT_MS });

    const paths = requested.map((u) => new URL(u).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js', '/docs/openapi.json']));
    await page.screenshot({ path: '/tmp/docs.png', timeout: WAIT_MS });
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
  });
});
