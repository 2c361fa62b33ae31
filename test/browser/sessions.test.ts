import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages, type MessageId } from '../../dashboard/src/i18n/messages.en.js';
import { createUser, setupAdmin, signedIn } from '../../plugins/auth/testing.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable, launchChromium, recordPageProblems, axeViolations } from './chromium.js';

const WAIT_MS = 15_000;
const OUTPUT_DIR = join(process.cwd(), 'test-results', 'sessions');
const USER = { email: 'grace@example.com', name: 'Grace Hopper', password: 'grace-password-1' };

/** The catalogue's text with `{name}`-style placeholders filled (no plural or select). */
function msg(id: MessageId, values: Record<string, string> = {}): string {
  return messages[id].replace(/\{(\w+)\}/g, (_m, key: string) => values[key] ?? `{${key}}`);
}

/** A plural message's `one` branch (`{count, plural, one {…} other {…}}`). */
function one(id: MessageId): string {
  const m = /one \{([^}]*)\}/.exec(messages[id]);
  if (!m) throw new Error(`${id} has no "one" branch`);
  return m[1]!;
}

/** Chromium logs every 4xx as a console error; a test names the statuses it provoked. */
function expectNoProblems(problems: string[], expectedStatuses: number[] = []): void {
  const expected = (p: string) => expectedStatuses.some((s) => p.startsWith('console.error: Failed to load resource') && p.includes(`status of ${s} `));
  expect(problems.filter((p) => !expected(p))).toEqual([]);
}

describe.runIf(browserAvailable())('the dashboard in a real browser: my sessions', () => {
  let inst: TestInstance;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const screens = new Map<Page, string>();

  beforeAll(async () => {
    inst = await startInstance();
    await setupAdmin(inst); // closes first-run setup
    await createUser(inst, { ...USER, roles: ['viewer'] });
    browser = await launchChromium();
  });

  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') {
      mkdirSync(OUTPUT_DIR, { recursive: true });
      const slug = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      for (const [page, screen] of screens) {
        await page.screenshot({ path: join(OUTPUT_DIR, `${slug}--${screen}.png`), fullPage: true, timeout: WAIT_MS }).catch(() => undefined);
      }
    }
    screens.clear();
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await inst?.close();
  });

  async function openPage(): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1024, height: 700 }, locale: 'en-GB' });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.setDefaultNavigationTimeout(WAIT_MS);
    screens.set(page, 'opened');
    return { page, problems: recordPageProblems(page) };
  }

  /** Waits for a screen's heading, then runs axe-core: no serious or critical violation. */
  async function onScreen(page: Page, name: string, heading: string): Promise<void> {
    screens.set(page, name);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor({ state: 'visible' });
    const violations = await axeViolations(page);
    expect(
      violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
      `axe on ${name}`,
    ).toEqual([]);
  }

  async function signInAt(page: Page): Promise<void> {
    await page.goto(inst.url + '/sign-in', { waitUntil: 'load' });
    await onScreen(page, 'sign-in', msg('signIn.title'));
    await page.getByLabel(msg('field.email')).fill(USER.email);
    await page.getByLabel(msg('field.password'), { exact: true }).fill(USER.password);
    await page.getByRole('button', { name: msg('signIn.submit') }).click();
    await onScreen(page, 'home', msg('home.greeting', { name: USER.name }));
  }

  async function openMySessions(page: Page): Promise<void> {
    await page.locator('header summary').click();
    await page.getByRole('link', { name: msg('sessions.link') }).click();
    await onScreen(page, 'sessions', msg('sessions.title'));
    expect(new URL(page.url()).pathname).toBe('/account/sessions');
  }

  it('lists two sessions, marks this device, signs the other out; the other device lands on sign-in', async () => {
    const first = await openPage();
    const second = await openPage();
    await signInAt(first.page);
    await signInAt(second.page);

    await openMySessions(first.page);
    const items = first.page.getByTestId('session');
    await expect.poll(() => items.count()).toBe(2);
    const current = items.filter({ hasText: msg('sessions.current') });
    expect(await current.count()).toBe(1);
    // This device has no button to sign itself out here; the other one has.
    expect(await current.getByRole('button').count()).toBe(0);
    // Dates are in the browser's locale (en-GB: "25 Nov 2026"), not the catalogue's "en" (US: "Nov 25, 2026").
    expect(await current.textContent()).toMatch(/\d{1,2} [A-Z][a-z]{2,3} \d{4}/);

    const other = items.filter({ hasNotText: msg('sessions.current') });
    await other.getByRole('button', { name: new RegExp(`^${msg('sessions.endOne')} `) }).click();
    await first.page
      .getByRole('status')
      .filter({ hasText: one('sessions.ended') })
      .waitFor({ state: 'visible' });
    await expect.poll(() => items.count()).toBe(1);
    await first.page.getByText(msg('sessions.noOthers')).waitFor({ state: 'visible' });
    // The pressed button went away with its session: the focus is on the outcome, not lost to <body>.
    expect(await first.page.evaluate(() => document.activeElement?.textContent ?? '')).toContain(one('sessions.ended'));
    await onScreen(first.page, 'sessions-after', msg('sessions.title'));

    // The second device's next click finds its session gone: sign-in, with "your session has ended".
    await second.page.getByRole('link', { name: msg('nav.users') }).click();
    await onScreen(second.page, 'sign-in', msg('signIn.title'));
    const url = new URL(second.page.url());
    expect(url.pathname).toBe('/sign-in');
    expect(url.searchParams.get('next')).toBe('/users');
    await second.page.getByText(msg('signIn.sessionEnded')).waitFor({ state: 'visible' });

    expectNoProblems(first.problems);
    expectNoProblems(second.problems, [401]);
  });

  it('signs out all other sessions at once', async () => {
    // Two more devices of the same person, signed in over the API.
    const phone = await signedIn(inst, USER.email, USER.password);
    const laptop = await signedIn(inst, USER.email, USER.password);
    const { page, problems } = await openPage();
    await signInAt(page);
    await openMySessions(page);
    const items = page.getByTestId('session');
    // At least these three (the first test's remaining session may still be live too).
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(3);
    const others = (await items.count()) - 1;
    const endAll = messages['sessions.endOthers'].replace(/^.*other \{([^}]*)\}.*$/, '$1').replace('#', String(others));
    await page.getByRole('button', { name: endAll }).click();
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().textContent()).toContain(msg('sessions.current'));

    for (const device of [phone, laptop]) expect((await device.get('/api/v1/me')).status).toBe(401);
    expectNoProblems(problems);
  });
});
