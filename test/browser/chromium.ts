import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Frame, type Page, type Request } from 'playwright-core';

/** Debian's chromium (`apt-get install -y chromium`); playwright-core drives it, it downloads no browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

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
    throw new Error(`${CHROMIUM_PATH} is missing and CI=true: install it with \`apt-get install -y chromium\`; browser tests never skip in CI`);
  }
  const line = '!'.repeat(100);
  console.warn(
    `\n${line}\n!!! SKIPPING browser tests: ${CHROMIUM_PATH} is missing. Install it with \`apt-get update && apt-get install -y chromium\`.\n${line}\n`,
  );
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
  // the test made: the main frame's navigation request is issued before the old page's fetches
  // are aborted) is not the page's failure; one the page aborts itself still is.
  let navigations = 0;
  const issuedAt = new WeakMap<Request, number>();
  page.on('request', (req) => {
    if (req.isNavigationRequest() && req.frame() === page.mainFrame()) navigations++;
    else issuedAt.set(req, navigations);
  });
  page.on('requestfailed', (req) => {
    const error = req.failure()?.errorText ?? '?';
    if (error === 'net::ERR_ABORTED' && navigations > (issuedAt.get(req) ?? navigations)) return;
    // The browser's own icon fetch, cut short because the page navigated on (sign-in, setup).
    if (error === 'net::ERR_ABORTED' && new URL(req.url()).pathname.startsWith('/favicon')) return;
    problems.push(`requestfailed: ${req.url()} (${error})`);
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
  await page.evaluate(AXE_SOURCE);
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
