import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../messages.js';
import { createUser, setupAdmin } from '../../plugins/auth/testing.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const USER = { email: 'ada@example.com', name: 'Ada Lovelace', password: 'ada-password-1' };
const OTHER = { email: 'alan@example.com', name: 'Alan Turing', password: 'alan-password-1' };

/** The bell's accessible name for a count (the catalogue's plural, `#` filled in). */
function bellName(count: number): string {
  const text = messages['notifications.bell'];
  const branch = count === 0 ? /=0 \{([^}]*)\}/ : count === 1 ? /one \{([^}]*)\}/ : /other \{([^}]*)\}/;
  return branch.exec(text)![1]!.replace('#', String(count));
}

describe.runIf(browserAvailable())('the dashboard in a real browser: shell (preferences, live notifications)', () => {
  let inst: TestInstance;
  let userId: string;
  let otherId: string;
  const { openPage, onScreen, signIn } = useDashboardBrowser('shell');

  beforeAll(async () => {
    inst = await startInstance();
    await setupAdmin(inst);
    userId = await createUser(inst, { ...USER, roles: ['viewer'] });
    otherId = await createUser(inst, { ...OTHER, roles: ['viewer'] });
  });

  afterAll(async () => {
    await inst?.close();
  });

  const html = (page: Page, attribute: string) => page.evaluate((a) => document.documentElement.getAttribute(a), attribute);
  const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

  async function openPreferences(page: Page, name = 'preferences'): Promise<void> {
    await page.locator('header .user-menu').click();
    await page.getByRole('menuitem', { name: msg('prefs.link') }).click();
    await onScreen(page, name, msg('prefs.title'));
    expect(new URL(page.url()).pathname).toBe('/account/preferences');
  }

  /** The server holds a live subscription for this many pages (the channel is open). */
  async function channelsOpen(count: number): Promise<void> {
    await expect.poll(() => inst.app.kernel.events.subscriberCount, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  }

  it('applies theme, accent, density and direction at once, keeps them after a reload and on another device', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, USER);
    await openPreferences(page, 'preferences-light');
    const light = await background(page);
    expect(light).toBe('rgb(246, 247, 249)'); // --canvas, light

    await page.getByRole('radio', { name: msg('prefs.themeDark') }).check();
    await expect.poll(() => html(page, 'data-theme')).toBe('dark');
    await expect.poll(() => background(page)).toBe('rgb(16, 18, 22)');
    await page
      .getByRole('status')
      .filter({ hasText: msg('prefs.saved') })
      .waitFor({ state: 'visible' });

    await page.getByLabel(msg('prefs.accent')).selectOption({ label: msg('prefs.accentTeal') });
    await expect.poll(() => html(page, 'data-accent')).toBe('teal');
    await page.getByRole('radio', { name: msg('prefs.densityCompact') }).check();
    await expect.poll(() => html(page, 'data-density')).toBe('compact');
    await page.getByRole('radio', { name: msg('prefs.dirRtl') }).check();
    await expect.poll(() => html(page, 'dir')).toBe('rtl');
    // The language is i18n.test.ts's: Preferences offers the instance's enabled locales and <html lang> names the catalogue shown.
    await page
      .getByRole('status')
      .filter({ hasText: msg('prefs.saved') })
      .waitFor({ state: 'visible' });
    await onScreen(page, 'preferences-dark', msg('prefs.title'));

    // Saved for the account: a reload starts dark and right to left.
    await page.reload({ waitUntil: 'load' });
    await onScreen(page, 'preferences-reloaded', msg('prefs.title'));
    expect(await html(page, 'data-theme')).toBe('dark');
    expect(await html(page, 'dir')).toBe('rtl');
    expect(await background(page)).toBe('rgb(16, 18, 22)');
    expect(await page.getByRole('radio', { name: msg('prefs.themeDark') }).isChecked()).toBe(true);

    // Another browser (nothing remembered locally) gets them from the server at start.
    const other = await openPage();
    await signIn(other.page, inst.url, USER);
    await expect.poll(() => html(other.page, 'data-theme')).toBe('dark');
    await expect.poll(() => html(other.page, 'dir')).toBe('rtl');
    await expect.poll(() => html(other.page, 'data-accent')).toBe('teal');

    // Back to the instance defaults: system theme, which is light in this browser.
    await page.getByRole('button', { name: msg('prefs.reset') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('prefs.resetDone') })
      .waitFor({ state: 'visible' });
    await expect.poll(() => html(page, 'data-theme')).toBe('system');
    await expect.poll(() => html(page, 'dir')).toBe('ltr');
    await expect.poll(() => background(page)).toBe(light);

    expectNoProblems(problems);
    expectNoProblems(other.problems);
  });

  it('follows the system in dark mode and passes axe there', async () => {
    const { page, problems } = await openPage({ colorScheme: 'dark' });
    await signIn(page, inst.url, OTHER);
    await openPreferences(page, 'preferences-system-dark');
    expect(await background(page)).toBe('rgb(16, 18, 22)');
    await page.getByRole('button', { name: bellName(0) }).click();
    await page.getByText(msg('notifications.none')).waitFor({ state: 'visible' });
    await page.getByRole('link', { name: msg('notifications.seeAll') }).click();
    await onScreen(page, 'notifications-dark', msg('notifications.title'));
    expectNoProblems(problems);
  });

  it('shows a notification created on the server at once, with the count; marks one and all as read', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, USER);
    await page.getByRole('button', { name: bellName(0) }).waitFor({ state: 'visible' });
    await channelsOpen(1);

    await inst.app.kernel.notifications.notify(userId, { kind: 'export.ready', title: 'Your export is ready', body: 'orders.csv', link: '/account/sessions' });
    await page.getByRole('button', { name: bellName(1) }).waitFor({ state: 'visible' });
    // Screen readers hear it arrive.
    await page.getByText(msg('notifications.arrived', { title: 'Your export is ready' })).waitFor({ state: 'attached' });

    // The bell opens the latest ones; from there to the whole list.
    await page.getByRole('button', { name: bellName(1) }).click();
    await page
      .getByRole('dialog', { name: bellName(1) })
      .getByText('Your export is ready', { exact: true })
      .waitFor({ state: 'visible' });
    await page.getByRole('link', { name: msg('notifications.seeAll') }).click();
    await onScreen(page, 'notifications', msg('notifications.title'));
    const items = page.getByTestId('notification');
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().textContent()).toContain('Your export is ready');

    // One more arrives while the list is open: it appears without a reload.
    await inst.app.kernel.notifications.notify(userId, { kind: 'export.ready', title: 'Second export' });
    await expect.poll(() => items.count()).toBe(2);
    await page.getByRole('button', { name: bellName(2) }).waitFor({ state: 'visible' });

    await page.getByRole('button', { name: msg('notifications.markReadLabel', { title: 'Second export' }) }).click();
    await page.getByRole('button', { name: bellName(1) }).waitFor({ state: 'visible' });
    await page.getByRole('button', { name: msg('notifications.markAll') }).click();
    await page.getByRole('button', { name: bellName(0) }).waitFor({ state: 'visible' });
    await page.getByRole('status').filter({ hasText: 'One notification marked as read.' }).waitFor({ state: 'visible' });
    await onScreen(page, 'notifications-read', msg('notifications.title'));

    // The kind now has its settings on the preferences screen: mute its e-mail.
    await openPreferences(page, 'preferences-notifications');
    const group = page.getByRole('group', { name: 'export.ready' });
    await group.getByRole('checkbox', { name: msg('notifPrefs.email') }).uncheck();
    await page.getByRole('button', { name: msg('notifPrefs.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('notifPrefs.saved') })
      .waitFor({ state: 'visible' });
    const stored = await inst.app.kernel.db.selectFrom('notification_prefs').selectAll().where('user_id', '=', userId).execute();
    expect(stored.map((r) => ({ kind: r.kind, inApp: Boolean(r.in_app), email: Boolean(r.email) }))).toEqual([
      { kind: 'export.ready', inApp: true, email: false },
    ]);
    expectNoProblems(problems);
  });

  it('still delivers live over server-sent events when the WebSocket is blocked', async () => {
    const { page, problems, requested } = await openPage();
    const sockets: string[] = [];
    // A proxy that refuses WebSockets: every /ws is closed before the server is ever reached.
    await page.routeWebSocket(/\/ws$/, (ws) => {
      sockets.push(ws.url());
      void ws.close({ code: 1011, reason: 'blocked' });
    });
    await signIn(page, inst.url, OTHER);
    await page.getByRole('button', { name: bellName(0) }).waitFor({ state: 'visible' });
    await expect.poll(() => requested.some((u) => new URL(u).pathname === '/api/v1/events')).toBe(true);
    expect(sockets.length).toBeGreaterThanOrEqual(1);
    await channelsOpen(1);

    await inst.app.kernel.notifications.notify(otherId, { kind: 'export.ready', title: 'Over SSE' });
    await page.getByRole('button', { name: bellName(1) }).waitFor({ state: 'visible' });
    expectNoProblems(problems);
  });

  it('reconnects after the WebSocket drops and still delivers', async () => {
    const { page, problems } = await openPage();
    let opened = 0;
    // The first socket is cut a moment after it opened (a proxy timeout, a server restart).
    await page.routeWebSocket(/\/ws$/, (ws) => {
      opened += 1;
      ws.connectToServer();
      if (opened === 1) setTimeout(() => void ws.close({ code: 1001, reason: 'going away' }), 1_000);
    });
    const grace = { email: 'grace@example.com', name: 'Grace Hopper', password: 'grace-password-1' };
    const graceId = await createUser(inst, { ...grace, roles: ['viewer'] });
    await signIn(page, inst.url, grace);
    await page.getByRole('button', { name: bellName(0) }).waitFor({ state: 'visible' });
    await expect.poll(() => opened, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await channelsOpen(1);
    await inst.app.kernel.notifications.notify(graceId, { kind: 'export.ready', title: 'After the drop' });
    await page.getByRole('button', { name: bellName(1) }).waitFor({ state: 'visible' });
    expectNoProblems(problems);
  });
});
