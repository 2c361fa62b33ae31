import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Frame, type Page, type Request } from 'playwright-core';

const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const DESKTOP = '/usr/bin/chromium';

/**
 * Debian's chromium-headless-shell (`apt-get install -y chromium-headless-shell`) when installed,
 * else Debian's chromium; TEST_CHROMIUM names another. playwright-core drives it and downloads
 * no browser. The shell is the same engine without the desktop browser's own processes: the
 * browser tests took a fifth less CPU with it, and most of CI's time is theirs.
 */
export const CHROMIUM_PATH = process.env.TEST_CHROMIUM ?? (existsSync(HEADLESS_SHELL) || !existsSync(DESKTOP) ? HEADLESS_SHELL : DESKTOP);
const INSTALL = 'apt-get update && apt-get install -y chromium-headless-shell';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function inCi(): boolean {
  const ci = (process.env.CI ?? '').toLowerCase();
  return ci === 'true' || ci === '1';
}

/**
 * Whether the browser tests can run. Under CI a missing chromium is an error (the test file
 * fails to load), never a silent skip. Elsewhere it warns loudly and answers false, and the
 * caller skips its suite with `describe.runIf(browserAvailable())`.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (inCi()) {
    throw new Error(`${CHROMIUM_PATH} is missing and CI=true: install it with \`${INSTALL}\` (or chromium); browser tests never skip in CI`);
  }
  const line = '!'.repeat(100);
  console.warn(`\n${line}\n!!! SKIPPING browser tests: ${CHROMIUM_PATH} is missing. Install it with \`${INSTALL}\` (or chromium).\n${line}\n`);
  return false;
}

/** `extraArgs`: e.g. `--host-resolver-rules=MAP booking.test 127.0.0.1` to reach the instance under a mapped name. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...ARGS, ...extraArgs], timeout: 30_000 });
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Every http(s)/ws(s) request the page makes whose host is not loopback (a CDN, a font service…)
 * nor one of `local` (names the browser was told resolve to loopback).
 */
export function recordForeignRequests(page: Page, local: readonly string[] = []): string[] {
  const foreign: string[] = [];
  page.on('request', (req: Request) => {
    const url = new URL(req.url());
    if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) return;
    if (!LOOPBACK.has(url.hostname) && !local.includes(url.hostname)) foreign.push(req.url());
  });
  return foreign;
}

/** Uncaught page errors, console errors (CSP violations land here) and failed requests. */
export function recordPageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console.error: ${msg.text()}`);
  });
  // A request cut short because the document it belonged to went away (a reload or a navigation
  // the test made), or because the page asked the very same thing again (an invalidated query
  // cancels the fetch under way: a save and then its own live event) is not the page's failure;
  // any other one the page aborts still is. The browser may report the cut before the request
  // that explains it: decided a moment later.
  let navigations = 0;
  let issued = 0;
  const issuedAt = new WeakMap<Request, { navigations: number; order: number }>();
  const lastOrder = new Map<string, number>();
  page.on('request', (req) => {
    issued++;
    if (req.isNavigationRequest() && req.frame() === page.mainFrame()) navigations++;
    else issuedAt.set(req, { navigations, order: issued });
    lastOrder.set(`${req.method()} ${req.url()}`, issued);
  });
  page.on('requestfailed', (req) => {
    const error = req.failure()?.errorText ?? '?';
    // The browser's own icon fetch, cut short because the page navigated on (sign-in, setup).
    if (error === 'net::ERR_ABORTED' && new URL(req.url()).pathname.startsWith('/favicon')) return;
    if (error !== 'net::ERR_ABORTED') return void problems.push(`requestfailed: ${req.url()} (${error})`);
    // A read the app's data layer cancelled (TanStack Query ends a fetch nobody waits for any
    // more: its screen went, or a newer ask replaced it) loses nothing; an aborted write might.
    if (req.method() === 'GET' && new URL(req.url()).pathname.startsWith('/api/')) return;
    const at = issuedAt.get(req) ?? { navigations, order: issued };
    const explained = () => navigations > at.navigations || (lastOrder.get(`${req.method()} ${req.url()}`) ?? 0) > at.order;
    if (explained()) return;
    setTimeout(() => {
      if (!explained()) problems.push(`requestfailed: ${req.url()} (${error})`);
    }, 500);
  });
  return problems;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations on the page (or one frame of it, e.g. an app's page in the dashboard's
 * iframe) as it is now (injected by the driver, so the page's CSP does not block it): id, impact
 * and the targets of each.
 */
export async function axeViolations(page: Page | Frame): Promise<Array<{ id: string; impact: string | null; targets: string[] }>> {
  // Injected once a document: parsing axe again on every check costs a tenth of a second.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: Document, opts: object): Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }> }> };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
}
