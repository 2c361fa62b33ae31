import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import { messages, type MessageId } from '../messages.js';
import { axeViolations, launchChromium, recordForeignRequests, recordPageProblems } from './chromium.js';

/** Upper bound for any single wait on the browser (navigation, selector, network). */
export const WAIT_MS = 15_000;

// A browser story clicks through several screens: 14–19 s on a quiet 2-core machine, past 30 s
// when other test runs share the cores. The test is about what the person sees, not how fast,
// so every file that uses this harness gets 120 s a test (each wait inside stays WAIT_MS).
vi.setConfig({ testTimeout: 120_000 });

/** The catalogue's text with `{name}`-style placeholders filled (no plural or select). */
export function msg(id: MessageId, values: Record<string, string> = {}): string {
  return messages[id].replace(/\{(\w+)\}/g, (_m, key: string) => values[key] ?? `{${key}}`);
}

/** A heading's whole text (a role name given as a string matches any heading containing it). */
export const exactly = (text: string): RegExp => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** A plural message's `one` branch (`{count, plural, one {…} other {…}}`). */
export function one(id: MessageId): string {
  const m = /one \{([^}]*)\}/.exec(messages[id]);
  if (!m) throw new Error(`${id} has no "one" branch`);
  return m[1]!;
}

/**
 * No page error, CSP violation or failed request. Chromium logs every 4xx answer as a console
 * error; a test lists the statuses it provoked on purpose (a wrong password, a refused field).
 */
export function expectNoProblems(problems: string[], expectedStatuses: number[] = []): void {
  const expected = (p: string) => expectedStatuses.some((s) => p.startsWith('console.error: Failed to load resource') && p.includes(`status of ${s} `));
  const unexpected = problems.filter((p) => !expected(p));
  // The problems in the message too: a JSON report shows the array only as `[ Array(1) ]`.
  expect(unexpected, `problems on the page:\n${unexpected.join('\n')}`).toEqual([]);
}

export interface OpenedPage {
  page: Page;
  /** Requests to a host that is not loopback. */
  foreign: string[];
  /** Page errors, console errors (CSP violations included) and failed requests. */
  problems: string[];
  /** Every URL the page requested. */
  requested: string[];
}

export interface OpenPageOptions {
  colorScheme?: 'light' | 'dark';
  locale?: string;
  /** The browser's IANA time zone (`Europe/Berlin`); the machine's when absent. */
  timezoneId?: string;
  viewport?: { width: number; height: number };
}

export interface DashboardBrowser {
  /** A fresh context (own cookies and cache) with recorders attached before the first request. */
  openPage(options?: OpenPageOptions): Promise<OpenedPage>;
  /** Waits for a screen's level-1 heading, then runs axe-core (once a file for a screen at one address, size and colour scheme): no serious or critical violation. */
  onScreen(page: Page, name: string, heading: string | RegExp): Promise<void>;
  /** Waits for a modal dialog (the page behind it hidden from assistive technology), then runs axe-core as onScreen does. */
  onDialog(page: Page, name: string, dialog: Locator): Promise<void>;
  /** From the navigation to the add-ons list, then to the page of the installed add-on named `name` (`screen` names it for axe and screenshots). */
  openAddOn(page: Page, name: string, screen: string): Promise<void>;
  /** Signs in (no 2FA) and waits for the home screen: on the sign-in screen the first time in a file, through the API after that. */
  signIn(page: Page, baseUrl: string, user: { email: string; password: string; name: string }): Promise<void>;
}

/**
 * Call inside a `describe`: launches Chromium for the suite, closes every context after each
 * test, and saves a full-page screenshot of each open page under `test-results/<output>/` when
 * a test fails (named after the test and the screen the page last showed), or after every test
 * with SHOW_SCREENS=1 (to look at the screens a change touched).
 */
export function useDashboardBrowser(output: string): DashboardBrowser {
  const outputDir = join(process.cwd(), 'test-results', output);
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const screens = new Map<Page, string>();
  const schemes = new WeakMap<Page, string>();
  const axed = new Set<string>();

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail' || process.env.SHOW_SCREENS === '1') {
      mkdirSync(outputDir, { recursive: true });
      const slug = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      for (const [page, screen] of screens) {
        await page.screenshot({ path: join(outputDir, `${slug}--${screen}.png`), fullPage: true, timeout: WAIT_MS }).catch(() => undefined);
      }
    }
    screens.clear();
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
  });

  async function openPage(options: OpenPageOptions = {}): Promise<OpenedPage> {
    if (!browser) throw new Error('the browser is not launched yet (call openPage inside a test)');
    const context = await browser.newContext({
      viewport: options.viewport ?? { width: 1024, height: 700 },
      colorScheme: options.colorScheme ?? 'light',
      ...(options.locale ? { locale: options.locale } : {}),
      ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.setDefaultNavigationTimeout(WAIT_MS);
    screens.set(page, 'opened');
    schemes.set(page, options.colorScheme ?? 'light');
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    return { page, foreign: recordForeignRequests(page), problems: recordPageProblems(page), requested };
  }

  async function onScreen(page: Page, name: string, heading: string | RegExp): Promise<void> {
    screens.set(page, name);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor({ state: 'visible' });
    await axeOnce(page, name, '');
  }

  /**
   * axe takes half a second a screen: a file's tests sign in (and land on Home) again and
   * again, so a screen at one address, size and colour scheme is checked once a file.
   */
  async function axeOnce(page: Page, name: string, state: string): Promise<void> {
    const size = page.viewportSize();
    const seen = `${name}${state} ${new URL(page.url()).pathname} ${size?.width}x${size?.height} ${schemes.get(page) ?? 'light'}`;
    if (axed.has(seen)) return;
    axed.add(seen);
    const violations = await axeViolations(page);
    expect(
      violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
      `axe on ${name}`,
    ).toEqual([]);
  }

  /**
   * A modal dialog is on screen (ui/Dialog): the page behind it is hidden from assistive
   * technology while it is open, so its heading cannot be waited for; the dialog itself is, by
   * its name, and axe checks the screen with it once a file, as onScreen does.
   */
  async function onDialog(page: Page, name: string, dialog: Locator): Promise<void> {
    screens.set(page, name);
    await dialog.waitFor({ state: 'visible' });
    await axeOnce(page, name, ' dialog');
  }

  async function openAddOn(page: Page, name: string, screen: string): Promise<void> {
    await page.getByRole('link', { name: msg('nav.addons') }).click();
    await onScreen(page, 'add-ons', exactly(msg('addOns.title')));
    await page.getByTestId('installed-addon').getByRole('link', { name }).click();
    await onScreen(page, screen, exactly(name));
  }

  // The first sign-in of a file goes through the form, like a person; the file's later tests
  // sign in through POST /auth/login from the page's own context (its cookie jar) and open
  // Home: typing on the sign-in screen again and again was a sixth of the browser suite's time.
  let signedInByForm = false;

  async function signIn(page: Page, baseUrl: string, user: { email: string; password: string; name: string }): Promise<void> {
    if (signedInByForm) {
      const answer = await page.request.post(baseUrl + '/api/v1/auth/login', {
        data: { email: user.email, password: user.password },
        headers: { origin: baseUrl },
        timeout: WAIT_MS,
      });
      if (answer.status() !== 200) throw new Error(`POST /auth/login for ${user.email} answered ${answer.status()}: ${await answer.text()}`);
      await page.goto(baseUrl + '/', { waitUntil: 'load' });
      await onScreen(page, 'home', msg('home.greeting', { name: user.name }));
      return;
    }
    signedInByForm = true;
    await page.goto(baseUrl + '/sign-in', { waitUntil: 'load' });
    await onScreen(page, 'sign-in', msg('signIn.title'));
    await page.getByLabel(msg('field.email')).fill(user.email);
    await page.getByLabel(msg('field.password'), { exact: true }).fill(user.password);
    await page.getByRole('button', { name: msg('signIn.submit') }).click();
    await onScreen(page, 'home', msg('home.greeting', { name: user.name }));
  }

  return { openPage, onScreen, onDialog, openAddOn, signIn };
}

/**
 * The main navigation, shown: below 900 px it is behind the Menu button (a drawer, DB37), which
 * is opened first; following a link closes it again, so ask for it before each use.
 */
export async function showNav(page: Page): Promise<Locator> {
  const nav = page.getByRole('navigation', { name: msg('nav.label') });
  if ((page.viewportSize()?.width ?? 1440) < 900) {
    const button = page.getByRole('button', { name: msg('nav.menu'), exact: true });
    await button.waitFor();
    if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  }
  await nav.waitFor();
  return nav;
}

export type Viewport = { width: number; height: number };
/** A desktop window and a phone, the two widths every screen is proven at. */
export const WIDE: Viewport = { width: 1440, height: 900 };
export const PHONE: Viewport = { width: 390, height: 844 };

/**
 * Declares a story at one width (`w` is its width in px). A file's stories take turns at WIDE and
 * PHONE rather than each running at both: overflow.test.ts walks every signed-in screen at both
 * widths with axe, so a story at the other width proved nothing new for twice the time (DB49).
 */
export function atWidth(viewport: Viewport, declare: (viewport: Viewport, w: number) => void): void {
  declare(viewport, viewport.width);
}
