import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/client.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const SHOTS = join(process.cwd(), 'test-results', 'nav-editor');
const TITLES = ['Alpha board', 'Beta board', 'Gamma board'];

/** The entries' titles of the editor's section named `title`, in order. */
async function entriesOf(page: Page, title: string): Promise<string[]> {
  const section = page.getByTestId('nav-section').filter({ has: page.getByRole('heading', { level: 2, name: exactly(title) }) });
  return (await section.getByTestId('nav-entry').locator('.nav-editor-entry-title').allTextContents()).map((s) => s.replace(/\s*(Page|App page)$/, '').trim());
}

/** Our pages' titles in the side navigation, in its order. */
async function sideOrder(page: Page): Promise<string[]> {
  // Hidden too: below 900 px the navigation is in a closed drawer (DB37).
  const links = await page
    .getByRole('navigation', { name: msg('nav.label'), includeHidden: true })
    .getByRole('link', { includeHidden: true })
    .allTextContents();
  return links.map((l) => l.trim()).flatMap((l) => TITLES.filter((title) => l.endsWith(title)));
}

describe.runIf(browserAvailable())('the navigation editor in a real browser', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  const ids: Record<string, string> = {};
  const { openPage, onScreen, signIn } = useDashboardBrowser('nav-editor');

  beforeAll(async () => {
    const boot = await bootWithAdmin();
    inst = boot.inst;
    admin = boot.admin;
    for (const title of TITLES) {
      const res = await admin.post('/api/v1/pages', { title, kind: 'dashboard' });
      expect(res.status).toBe(201);
      ids[title] = (res.body as any).data.page.id;
    }
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
  });

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`an admin reorders by keyboard and drag, moves a page to a new section, saves, and sees a duplicate refused (${viewport.width} px)`, async () => {
      const w = viewport.width;
      const sections = [{ id: 'boards', title: 'Boards', entries: TITLES.map((title) => ({ pageId: ids[title]! })) }];
      expect((await admin.put('/api/v1/pages/nav-order', { sections })).status).toBe(200);

      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/pages`);
      await onScreen(page, `list-${w}`, exactly(msg('pages.list.title')));
      await page.getByRole('link', { name: msg('pages.list.navEditor') }).click();
      await onScreen(page, `editor-${w}`, exactly(msg('pages.navEditor.title')));
      await expect.poll(() => entriesOf(page, 'Boards')).toEqual(TITLES);

      // Keyboard: Gamma up twice, the focus staying on its button, each move announced.
      const up = page.getByRole('button', { name: msg('pages.navEditor.up', { title: 'Gamma board' }) });
      await up.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => entriesOf(page, 'Boards')).toEqual(['Alpha board', 'Gamma board', 'Beta board']);
      await expect
        .poll(() => page.getByRole('status').allTextContents())
        .toContain(msg('pages.navEditor.movedUp', { title: 'Gamma board', position: '2', count: '3', section: 'Boards' }));
      await expect.poll(() => up.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.press('Space');
      await expect.poll(() => entriesOf(page, 'Boards')).toEqual(['Gamma board', 'Alpha board', 'Beta board']);
      // At the top its "up" is disabled: the focus is on "down", and Enter moves it down again.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe(msg('pages.navEditor.down', { title: 'Gamma board' }));
      await page.keyboard.press('Enter');
      await expect.poll(() => entriesOf(page, 'Boards')).toEqual(['Alpha board', 'Gamma board', 'Beta board']);
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe(msg('pages.navEditor.down', { title: 'Gamma board' }));

      // Drag with the mouse: Beta onto Alpha goes before it.
      await page
        .getByTestId('nav-entry')
        .filter({ hasText: 'Beta board' })
        .locator('.nav-editor-grip')
        .dragTo(page.getByTestId('nav-entry').filter({ hasText: 'Alpha board' }).locator('.nav-editor-entry-title'));
      await expect.poll(() => entriesOf(page, 'Boards')).toEqual(['Beta board', 'Alpha board', 'Gamma board']);

      // A new section, its identifier made from the title; Alpha moves into it.
      const sectionTitle = `Reports ${w}`;
      await page.getByLabel(msg('pages.navEditor.newSectionTitle'), { exact: true }).fill(sectionTitle);
      expect(await page.getByLabel(msg('pages.navEditor.newSectionId'), { exact: true }).inputValue()).toBe(`reports-${w}`);
      await page.getByRole('button', { name: msg('pages.navEditor.addSection') }).click();
      await page.getByRole('heading', { level: 2, name: exactly(sectionTitle) }).waitFor();
      await page.getByLabel(msg('pages.navEditor.moveTo', { title: 'Alpha board' })).selectOption({ label: sectionTitle });
      await expect.poll(() => entriesOf(page, sectionTitle)).toEqual(['Alpha board']);
      await expect.poll(() => entriesOf(page, 'Boards')).toEqual(['Beta board', 'Gamma board']);
      // The new section first: dragged onto the other one on a desktop, by its button on a phone
      // (both sections do not fit in a phone's window, and touch does not start HTML5 drags).
      const sectionNamed = (title: string) => page.getByTestId('nav-section').filter({ has: page.getByRole('heading', { level: 2, name: exactly(title) }) });
      if (w === 390) await page.getByRole('button', { name: msg('pages.navEditor.sectionUp', { title: sectionTitle }) }).click();
      else
        await sectionNamed(sectionTitle)
          .locator('.nav-editor-section-head .nav-editor-grip')
          .dragTo(sectionNamed('Boards').getByRole('heading', { level: 2 }));
      await expect.poll(() => page.getByRole('heading', { level: 2 }).first().textContent()).toBe(sectionTitle);
      // Down and up again by keyboard: at the end, the focus goes to the button that still works.
      await page.getByRole('button', { name: msg('pages.navEditor.sectionDown', { title: sectionTitle }) }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('heading', { level: 2 }).first().textContent()).toBe('Boards');
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe(msg('pages.navEditor.sectionUp', { title: sectionTitle }));
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('heading', { level: 2 }).first().textContent()).toBe(sectionTitle);
      await onScreen(page, `arranged-${w}`, exactly(msg('pages.navEditor.title')));
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, `arranged-${w}.png`), fullPage: true });

      await page.getByRole('button', { name: msg('pages.navEditor.save') }).click();
      await page.locator('.notice').getByText(msg('pages.navEditor.saved')).waitFor();

      // After a reload, the side navigation shows the new order.
      await page.reload();
      await onScreen(page, `reloaded-${w}`, exactly(msg('pages.navEditor.title')));
      await expect.poll(() => sideOrder(page)).toEqual(['Alpha board', 'Beta board', 'Gamma board']);
      await expect.poll(() => entriesOf(page, sectionTitle)).toEqual(['Alpha board']);
      await expect.poll(() => entriesOf(page, 'Boards')).toEqual(['Beta board', 'Gamma board']);

      // A page placed twice: the server refuses it, and says so on the entry.
      await page
        .getByLabel(msg('pages.navEditor.page'), { exact: true })
        .selectOption({ label: msg('pages.navEditor.placedIn', { title: 'Gamma board', section: 'Boards' }) });
      await page.getByLabel(msg('pages.navEditor.toSection')).selectOption({ label: sectionTitle });
      await page.getByRole('button', { name: msg('pages.navEditor.add'), exact: true }).click();
      await expect.poll(() => entriesOf(page, sectionTitle)).toEqual(['Alpha board', 'Gamma board']);
      await page.getByRole('button', { name: msg('pages.navEditor.save') }).click();
      await page.getByRole('alert').getByText(msg('pages.navEditor.refused')).waitFor();
      const refused = page.getByTestId('nav-entry').filter({ hasText: msg('pages.navEditor.issue.duplicate-entry') });
      await expect.poll(() => refused.count()).toBe(1);
      await onScreen(page, `refused-${w}`, exactly(msg('pages.navEditor.title')));
      await page.screenshot({ path: join(SHOTS, `refused-${w}.png`), fullPage: true });
      // Removing the second one saves.
      await refused.getByRole('button', { name: msg('pages.navEditor.remove', { title: 'Gamma board' }) }).click();
      await page.getByRole('button', { name: msg('pages.navEditor.save') }).click();
      await page.locator('.notice').getByText(msg('pages.navEditor.saved')).waitFor();

      // Rename a section, remove the other: its pages fall into the server's last "Pages" section.
      await sectionNamed('Boards').getByLabel(msg('pages.navEditor.sectionTitle')).fill('Dashboards');
      await page.getByRole('button', { name: msg('pages.navEditor.sectionRemove', { title: sectionTitle }) }).click();
      await expect.poll(() => page.getByRole('heading', { level: 2, name: exactly(sectionTitle) }).count()).toBe(0);
      await page.getByRole('button', { name: msg('pages.navEditor.save') }).click();
      await page.locator('.notice').getByText(msg('pages.navEditor.saved')).waitFor();
      await expect.poll(() => entriesOf(page, 'Dashboards')).toEqual(['Beta board']);
      await expect.poll(() => entriesOf(page, 'Pages')).toEqual(['Alpha board', 'Gamma board']);
      expectNoProblems(problems, [400]);
    });
  }
});
