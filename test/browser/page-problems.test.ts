import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchChromium, recordPageProblems } from './chromium.js';

/** The page-problem recorder every browser test relies on: what it counts as the page's failure, and what not. */
describe.runIf(browserAvailable())('recordPageProblems', () => {
  let server: Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    // `/slow` answers after 30 s: it is cut short by a reload or by the page itself long before.
    server = createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 30_000).unref();
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>t</title><p>page</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function withPage(act: (page: import('playwright-core').Page) => Promise<void>): Promise<string[]> {
    const page = await browser.newPage();
    const problems = recordPageProblems(page);
    await page.goto(`${base}/`);
    await act(page);
    await page.close();
    return problems;
  }

  it('does not count a fetch cut short by a reload the test made', async () => {
    const problems = await withPage(async (page) => {
      const failed = page.waitForEvent('requestfailed');
      // Reload once the request is on its way (not after a fixed wait a loaded machine may miss).
      const sent = page.waitForRequest((r) => r.url().endsWith('/slow'));
      await page.evaluate(() => void fetch('/slow').catch(() => undefined));
      await sent;
      await page.reload();
      await failed;
    });
    expect(problems).toEqual([]);
  });

  it('counts a fetch the page aborts itself, and a page error', async () => {
    const problems = await withPage(async (page) => {
      const failed = page.waitForEvent('requestfailed');
      const thrown = page.waitForEvent('pageerror');
      await page.evaluate(() => {
        const stop = new AbortController();
        void fetch('/slow', { signal: stop.signal }).catch(() => undefined);
        setTimeout(() => stop.abort(), 100);
        setTimeout(() => {
          throw new Error('boom');
        }, 150);
      });
      await Promise.all([failed, thrown]);
    });
    // Both counted (an abort is decided a moment after the browser reports it); which comes first is not the point.
    await expect.poll(() => [...problems].sort()).toEqual(['pageerror: boom', `requestfailed: ${base}/slow (net::ERR_ABORTED)`]);
  });
});
