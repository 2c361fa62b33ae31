import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../plugins/auth/testing.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { connectSqlite, sqliteSource, stockTable, type SqliteSource } from '../helpers/sqlite-source.js';
import { browserAvailable } from './chromium.js';
import { atWidth, exactly, expectNoProblems, msg, PHONE, useDashboardBrowser, WIDE } from './harness.js';

const VIEWER = { email: 'gc-viewer@example.com', name: 'Val Viewer', password: 'viewer-password-1' };

/** The grid's column headers in order (the selection column left out), by column name. */
const headers = (page: Page) =>
  page.locator('.data-head [role="columnheader"][id^="data-col-"]').evaluateAll((els) => els.map((e) => e.id.replace('data-col-', '')));
const widthOf = (page: Page, column: string) => page.getByRole('separator', { name: msg('data.columns.resize', { column }) }).getAttribute('aria-valuenow');

describe.runIf(browserAvailable())('a grid’s columns hidden, moved, resized and kept in the person’s layout', () => {
  let inst: TestInstance;
  let source: SqliteSource;
  let conn: string;
  let admin: Awaited<ReturnType<typeof bootWithAdmin>>['admin'];
  const { openPage, onScreen, signIn } = useDashboardBrowser('grid-columns');

  beforeAll(async () => {
    source = sqliteSource('grid-columns', stockTable);
    const boot = await bootWithAdmin();
    inst = boot.inst;
    admin = boot.admin;
    conn = await connectSqlite(admin, source.file);
    await createUser(inst, { ...VIEWER, roles: ['viewer'] });
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    source?.dispose();
  });

  atWidth(WIDE, (viewport, w) => {
    it(`on a list page: hides a column, lets the key go and moves a column first, widens one by keyboard; reloaded the same; another person unaffected (${w} px)`, async () => {
      const res = await admin.post('/api/v1/pages', { connectionId: conn, table: 'product', title: `Stock ${w}`, slug: `stock-${w}`, kind: 'list' });
      expect(res.status).toBe(201);
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/p/stock-${w}`);
      await onScreen(page, `columns-list-${w}`, exactly(`Stock ${w}`));
      await expect.poll(() => page.locator('[data-column="name"]').first().textContent()).toBe('Item 1');
      expect(await headers(page)).toEqual(['id', 'name', 'qty']);

      await page.getByRole('button', { name: msg('data.columns.button') }).click();
      const menu = page.getByRole('group', { name: msg('data.columns.title') });
      await onScreen(page, `columns-menu-${w}`, exactly(`Stock ${w}`));
      await menu.getByRole('checkbox', { name: 'qty' }).uncheck();
      await expect.poll(() => headers(page)).toEqual(['id', 'name']);
      // The key column is frozen first: it does not move until let go.
      await expect(menu.getByRole('button', { name: msg('data.columns.up', { column: 'name' }) }).isDisabled()).resolves.toBe(true);
      await menu.getByRole('checkbox', { name: msg('data.columns.freezeKey') }).uncheck();
      await menu.getByRole('button', { name: msg('data.columns.up', { column: 'name' }) }).click();
      await expect.poll(() => headers(page)).toEqual(['name', 'id']);
      await page.getByText(msg('data.columns.moved', { column: 'name', position: '1', count: '3' })).waitFor({ state: 'attached' });
      await page.keyboard.press('Escape');
      await expect.poll(() => menu.count()).toBe(0);

      // Wider by keyboard on the header's edge: two steps of 20 px.
      const before = Number(await widthOf(page, 'name'));
      await page.getByRole('separator', { name: msg('data.columns.resize', { column: 'name' }) }).focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await expect.poll(() => widthOf(page, 'name')).toBe(String(before + 40));
      // The layout is saved a moment after the last change: reload once the server holds the new width.
      const pageId = res.body.data.page.id as string;
      await expect
        .poll(async () => JSON.stringify((await admin.get(`/api/v1/pages/${pageId}`)).body.data?.myLayout?.layout?.grid?.widths ?? null), { timeout: 15_000 })
        .toContain(`"name":${before + 40}`);

      await page.reload();
      await onScreen(page, `columns-list-${w}`, exactly(`Stock ${w}`));
      await expect.poll(() => page.locator('[data-column="name"]').first().textContent()).toBe('Item 1');
      expect(await headers(page)).toEqual(['name', 'id']);
      expect(await widthOf(page, 'name')).toBe(String(before + 40));
      expectNoProblems(problems);

      // Another person's grid of the same page is as the page has it.
      const other = await openPage({ viewport });
      await signIn(other.page, inst.url, VIEWER);
      await other.page.goto(`${inst.url}/p/stock-${w}`);
      await onScreen(other.page, `columns-viewer-${w}`, exactly(`Stock ${w}`));
      await expect.poll(() => other.page.locator('[data-column="name"]').first().textContent()).toBe('Item 1');
      expect(await headers(other.page)).toEqual(['id', 'name', 'qty']);
      expectNoProblems(other.problems);

      // Reset: the table's own arrangement, for good.
      await page.getByRole('button', { name: msg('data.columns.button') }).click();
      await menu.getByRole('button', { name: msg('data.columns.reset') }).click();
      await expect.poll(() => headers(page)).toEqual(['id', 'name', 'qty']);
      await page.waitForLoadState('networkidle');
      await page.reload();
      await onScreen(page, `columns-list-${w}`, exactly(`Stock ${w}`));
      await expect.poll(() => headers(page)).toEqual(['id', 'name', 'qty']);
    });
  });

  atWidth(PHONE, (viewport, w) => {
    it(`on a table’s own grid: a header edge dragged wider and a column hidden stay after a reload (${w} px)`, async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/connections/${conn}/tables/product`);
      await onScreen(page, `columns-table-${w}`, /product/i);
      await expect.poll(() => page.locator('[data-column="name"]').first().textContent()).toBe('Item 1');
      const handle = page.getByRole('separator', { name: msg('data.columns.resize', { column: 'id' }) });
      const before = Number(await handle.getAttribute('aria-valuenow'));
      const box = (await handle.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + 30, box.y + box.height / 2, { steps: 3 });
      await page.mouse.up();
      await expect.poll(async () => Number(await handle.getAttribute('aria-valuenow'))).toBe(before + 30);
      await page.getByRole('button', { name: msg('data.columns.button') }).click();
      await page
        .getByRole('group', { name: msg('data.columns.title') })
        .getByRole('checkbox', { name: 'qty' })
        .uncheck();
      await expect.poll(() => headers(page)).toEqual(['id', 'name']);

      await page.reload();
      await onScreen(page, `columns-table-${w}`, /product/i);
      await expect.poll(() => headers(page)).toEqual(['id', 'name']);
      expect(Number(await handle.getAttribute('aria-valuenow'))).toBe(before + 30);
      expectNoProblems(problems);
    });
  });
});
