import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../messages.js';
import { createUser, setupAdmin, signedIn } from '../../plugins/auth/testing.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, one, useDashboardBrowser } from './harness.js';

const USER = { email: 'grace@example.com', name: 'Grace Hopper', password: 'grace-password-1' };

describe.runIf(browserAvailable())('the dashboard in a real browser: my sessions', () => {
  let inst: TestInstance;
  const { openPage, onScreen, signIn } = useDashboardBrowser('sessions');

  beforeAll(async () => {
    inst = await startInstance();
    await setupAdmin(inst); // closes first-run setup
    await createUser(inst, { ...USER, roles: ['viewer'] });
  });

  afterAll(async () => {
    await inst?.close();
  });

  async function signInAt(page: Page): Promise<void> {
    await signIn(page, inst.url, USER);
  }

  async function openMySessions(page: Page): Promise<void> {
    await page.locator('header .user-menu').click();
    await page.getByRole('menuitem', { name: msg('sessions.link') }).click();
    await onScreen(page, 'sessions', msg('sessions.title'));
    expect(new URL(page.url()).pathname).toBe('/account/sessions');
  }

  it('lists two sessions, marks this device, signs the other out; the other device lands on sign-in', async () => {
    const first = await openPage({ locale: 'en-GB' });
    const second = await openPage({ locale: 'en-GB' });
    await signInAt(first.page);
    await signInAt(second.page);

    await openMySessions(first.page);
    const items = first.page.getByTestId('session');
    await expect.poll(() => items.count()).toBe(2);
    const current = items.filter({ hasText: msg('sessions.current') });
    expect(await current.count()).toBe(1);
    // The device as a person names it, the raw User-Agent on hover.
    const name = current.getByText(msg('sessions.device', { browser: 'Chrome', system: 'Linux' }), { exact: true });
    expect(await name.getAttribute('title')).toBe(await first.page.evaluate(() => navigator.userAgent));
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
    await second.page.getByRole('link', { name: msg('nav.connections'), exact: true }).click();
    await onScreen(second.page, 'sign-in', msg('signIn.title'));
    const url = new URL(second.page.url());
    expect(url.pathname).toBe('/sign-in');
    expect(url.searchParams.get('next')).toBe('/connections');
    await second.page.getByText(msg('signIn.sessionEnded')).waitFor({ state: 'visible' });

    expectNoProblems(first.problems);
    expectNoProblems(second.problems, [401]);
  });

  it('signs out all other sessions at once', async () => {
    // Two more devices of the same person, signed in over the API.
    const phone = await signedIn(inst, USER.email, USER.password);
    const laptop = await signedIn(inst, USER.email, USER.password);
    const { page, problems } = await openPage({ locale: 'en-GB' });
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
