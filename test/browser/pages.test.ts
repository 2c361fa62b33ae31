import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../plugins/auth/testing.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import { connectSqlite, sqliteSource, stockTable, type SqliteSource } from '../helpers/sqlite-source.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser, atWidth, PHONE } from './harness.js';

const VIEWER = { email: 'vi@example.com', name: 'Vi Ewer', password: 'viewer-password-1' };

describe.runIf(browserAvailable())('pages in a real browser', () => {
  let inst: TestInstance;
  let source: SqliteSource;
  const { openPage, onScreen, signIn } = useDashboardBrowser('pages');

  beforeAll(async () => {
    source = sqliteSource('pages', stockTable);
    const boot = await bootWithAdmin();
    inst = boot.inst;
    await connectSqlite(boot.admin, source.file);
    await createUser(inst, { ...VIEWER, roles: ['viewer'] });
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    source?.dispose();
  });

  atWidth(PHONE, (viewport) => {
    it(`an admin creates a list page, opens it from the nav, renames, duplicates and deletes it; a viewer outside its roles does not see it (${viewport.width} px)`, async () => {
      const w = viewport.width;
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/pages`);
      await onScreen(page, `list-${w}`, exactly(msg('pages.list.title')));
      await page.getByRole('link', { name: msg('pages.list.new') }).click();
      await onScreen(page, `new-${w}`, exactly(msg('pages.new.title')));
      const title = `Products ${w}`;
      await page.getByLabel(msg('pages.field.title')).fill(title);
      await page.getByLabel(msg('pages.field.kind')).selectOption('list');
      await page.getByLabel(msg('pages.field.connection')).selectOption({ label: 'Shop' });
      await expect.poll(() => page.getByLabel(msg('pages.field.table')).locator('option').count()).toBeGreaterThan(1);
      await page.getByLabel(msg('pages.field.table')).selectOption({ label: 'Product' });
      await page.getByRole('checkbox', { name: /editor/i }).check();
      await page.getByRole('button', { name: msg('pages.new.submit') }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/p/products-${w}`);
      await onScreen(page, `open-${w}`, 'Product');
      await expect.poll(() => page.locator('[data-column="name"]').first().textContent()).toBe('Item 1');
      await page.locator('.data-count').getByText('5 rows').waitFor();

      // In the navigation, under "Pages".
      // Hidden too: below 900 px the navigation is in a closed drawer (DB37).
      const nav = page.getByRole('navigation', { name: msg('nav.label'), includeHidden: true });
      const section = nav.getByRole('list', { name: msg('nav.pages'), includeHidden: true });
      await section.getByRole('link', { name: title, includeHidden: true }).waitFor({ state: 'attached' });

      // Rename.
      await page.goto(`${inst.url}/pages`);
      await onScreen(page, `list2-${w}`, exactly(msg('pages.list.title')));
      await page.getByRole('link', { name: msg('pages.list.editOne', { title }) }).click();
      await onScreen(page, `edit-${w}`, msg('pages.edit.heading', { title }));
      await page.getByLabel(msg('pages.field.title')).fill(`${title} renamed`);
      await page.getByRole('button', { name: msg('pages.edit.save') }).click();
      await page.getByRole('heading', { level: 1, name: msg('pages.edit.heading', { title: `${title} renamed` }) }).waitFor();
      await section.getByRole('link', { name: `${title} renamed`, includeHidden: true }).waitFor({ state: 'attached' });

      // Duplicate: the copy's editor opens.
      const originalUrl = page.url();
      await page.getByRole('button', { name: msg('pages.edit.duplicate') }).click();
      await expect.poll(() => page.url()).not.toBe(originalUrl);
      await page.getByRole('heading', { level: 1, name: /renamed/ }).waitFor();
      const copyUrl = page.url();

      // Delete the copy, with a confirmation.
      await page.getByRole('button', { name: msg('pages.edit.delete') }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: msg('pages.delete.confirm') })
        .click();
      await onScreen(page, `after-delete-${w}`, exactly(msg('pages.list.title')));
      expect(page.url()).not.toBe(copyUrl);
      await expect.poll(() => page.getByRole('link', { name: `${title} renamed` }).count()).toBeGreaterThan(0);
      // 404: the deleted page's own query, refreshed by the live event before the list screen replaced the editor.
      expectNoProblems(problems, [404]);

      // A viewer (not among the page's roles): not in the nav, and its address is not found.
      const other = await openPage({ viewport });
      await signIn(other.page, inst.url, VIEWER);
      expect(await other.page.getByRole('link', { name: `${title} renamed` }).count()).toBe(0);
      await other.page.goto(`${inst.url}/p/products-${w}`);
      await onScreen(other.page, `viewer-${w}`, msg('notFound.title'));
    }, 120_000);
  });
});
